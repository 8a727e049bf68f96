"""`once`: functools.cached_property without its lock.

Up to Python 3.11 cached_property takes a lock on the first access of each instance (3.12 dropped it as
useless); a check makes a context per file, and every rule asks for its properties. Like cached_property,
the value is stored in the instance, so later reads are plain attribute reads.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    once = cached_property
else:

    class once:
        def __init__(self, compute: Callable[[Any], Any]):
            self.compute = compute
            self.name = compute.__name__
            self.__doc__ = compute.__doc__

        def __set_name__(self, owner: type, name: str) -> None:
            self.name = name

        def __get__(self, instance: Any, owner: type | None = None) -> Any:
            if instance is None:
                return self
            value = instance.__dict__[self.name] = self.compute(instance)
            return value
