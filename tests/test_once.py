"""cfglint.once: a property worked out on first use and kept in the instance."""

from __future__ import annotations

from cfglint.once import once


class Counted:
    made = 0

    def __init__(self, value: int):
        self.value = value

    @once
    def doubled(self) -> int:
        """Twice the value."""
        Counted.made += 1
        return 2 * self.value


def test_worked_out_once_per_instance_and_kept_in_it():
    Counted.made = 0
    a, b = Counted(1), Counted(5)
    assert (a.doubled, a.doubled, b.doubled) == (2, 2, 10)
    assert Counted.made == 2
    assert a.__dict__["doubled"] == 2  # later reads are plain attribute reads
    assert Counted.doubled.__doc__ == "Twice the value."  # the class gets the descriptor, with its docstring
