"""The small expression language entries use to say what a runtime derives from the keys it read.

An expression is written as the runtime's own code reads it, e.g. `head_dim or hidden_size //
num_attention_heads`, and evaluated over the values the runtime parsed (a name it did not read is None).
Only names, constants, `or`/`and`/`not`, `if`/`else`, comparisons, `+ - * / //`, `x["key"]` on a dict and the
functions in FUNCTIONS are allowed; anything else is refused when the entry is compiled, so a typo in the data
fails the test suite instead of a user's run. Arithmetic on values of the wrong type gives None: a runtime that
would crash on them is described by its fields' types, not here.
"""

from __future__ import annotations

import ast
import math
import operator
from functools import lru_cache, partial
from typing import Any, Callable

Env = dict[str, Any]


def _float(x: Any) -> float | None:
    """float(x) for a number; None for anything else, and for an integer beyond a float's range (float() raises)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return None
    try:
        return float(x)
    except OverflowError:
        return None


def uniform_layers(n: Any, kind: str) -> list[str] | None:
    """n layers of one kind; None for a count no model has (not a whole number in [0, 4096])."""
    return [kind] * n if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 4096 else None


def _sliding_from(n: Any, first: Any) -> list[str] | None:
    """Layers below `first` attend fully, the rest slide (Qwen2's max_window_layers)."""
    if not isinstance(n, int) or not isinstance(first, int) or not 0 <= n <= 4096:
        return None
    return ["full_attention" if i < first else "sliding_attention" for i in range(n)]


def _pattern(n: Any, every: Any) -> list[str] | None:
    """Every `every`-th layer attends fully, the others slide (Gemma 2: 2, Gemma 3: 6)."""
    if not isinstance(n, int) or not isinstance(every, int) or every <= 0 or not 0 <= n <= 4096:
        return None
    return ["full_attention" if (i + 1) % every == 0 else "sliding_attention" for i in range(n)]


def _qwen2_moe_layers(n: Any, below: Any) -> list[str] | None:
    """Qwen2-MoE: odd-numbered layers (0, 2, ... counted from zero) below max_window_layers slide."""
    if not isinstance(n, int) or not isinstance(below, int) or not 0 <= n <= 4096:
        return None
    return ["sliding_attention" if (i + 1) % 2 and i < below else "full_attention" for i in range(n)]


def _moe_layers(n: Any, experts: Any, first_dense: Any, every: Any) -> list[str] | None:
    """DeepSeek's MLP per layer: none with no experts; else the first `first_dense` layers dense, then every
    `every`-th layer experts (`every` None: every layer)."""
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (n, first_dense)) or not 0 <= n <= 4096:
        return None
    if not experts:
        return ["dense"] * n
    if every is not None and (not isinstance(every, int) or isinstance(every, bool) or every <= 0):
        return None
    return ["moe" if i >= first_dense and (every is None or i % every == 0) else "dense" for i in range(n)]


def _mla_scalar(qk_head_dim: Any, factor: Any, mscale_all_dim: Any) -> float | None:
    """The attention scale of DeepSeek's MLA as a query_pre_attn_scalar S (scores times S**-0.5): qk_head_dim**-0.5,
    times yarn_get_mscale(factor, mscale_all_dim)**2 when mscale_all_dim is set, with yarn_get_mscale(s, m) =
    0.1 * m * ln(s) + 1 (1 for s <= 1)."""
    if not _number(qk_head_dim) or qk_head_dim <= 0:
        return None
    if not mscale_all_dim:
        return qk_head_dim
    if not (_number(factor) and _number(mscale_all_dim)):
        return None
    try:
        mscale = 1.0 if factor <= 1 else 0.1 * mscale_all_dim * math.log(factor) + 1.0
        square = mscale * mscale  # multiplied, as DeepSeek's attention does: an overflow is inf (scale inf, S 0), not an error
        return qk_head_dim / (square * square) if mscale else None
    except OverflowError:  # an integer beyond a float's range: the runtime's own error, not a value
        return None


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "layers": uniform_layers,
    "sliding_from": _sliding_from,
    "pattern": _pattern,
    "qwen2_moe_layers": _qwen2_moe_layers,
    "get": _get,
    "iterable": lambda x: isinstance(x, (str, list, dict)),  # the JSON types Python's `in` searches
    "moe_layers": _moe_layers,
    "mla_scalar": _mla_scalar,
    "float": lambda x: _float(x),
    # int() of an infinity or NaN raises: like any value of the wrong kind, it gives None.
    "int": lambda x: x if type(x) is int else int(x) if isinstance(x, float) and math.isfinite(x) else None,
}

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


class ExpressionError(ValueError):
    pass


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _arithmetic(op: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    if not (_number(a) and _number(b)):
        return None
    try:
        return op(a, b)
    except (ZeroDivisionError, OverflowError):
        return None


def _compare(op: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    try:
        return op(a, b)
    except TypeError:
        return None


def _negative(value: Any) -> Any:
    return -value if _number(value) else None


# The compiled functions' globals: the language's functions under a prefix of their own (no clash with the
# helpers, the operators or the constants `_c0`, `_c1`, ...).
_NAMES = {**{f"_fn_{name}": fn for name, fn in FUNCTIONS.items()}, "_arithmetic": _arithmetic, "_compare": _compare,
          "_negative": _negative, "_get": _get}
_OPERATOR_NAMES = {op: f"_op_{op.__name__}" for op in (*_BINARY, *_COMPARE)}
_NAMES.update({_OPERATOR_NAMES[op]: fn for op, fn in (*_BINARY.items(), *_COMPARE.items())})
_NEVER_RAISE = {ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not"}  # on any two values


def _python(node: ast.AST, constants: dict[str, Any]) -> str:
    """The expression as Python source over `env`, with the language's meaning: a name is `env.get(name)`,
    arithmetic on a non-number is None, a comparison that raises TypeError is None."""
    if isinstance(node, ast.Constant):
        name = f"_c{len(constants)}"
        constants[name] = node.value
        return name
    if isinstance(node, ast.Name):
        if node.id in ("None", "True", "False"):
            raise ExpressionError(f"use the literal {node.id}")
        return f"env.get({node.id!r})"
    if isinstance(node, ast.List):
        return "[" + ", ".join(_python(e, constants) for e in node.elts) + "]"
    if isinstance(node, ast.BoolOp):
        joiner = " or " if isinstance(node.op, ast.Or) else " and "
        return "(" + joiner.join(_python(v, constants) for v in node.values) + ")"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return f"(not {_python(node.operand, constants)})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return f"_negative({_python(node.operand, constants)})"
    if isinstance(node, ast.IfExp):
        test, body, orelse = (_python(n, constants) for n in (node.test, node.body, node.orelse))
        return f"({body} if {test} else {orelse})"
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _python(node.left, constants), _python(node.right, constants)
        return f"_arithmetic({_OPERATOR_NAMES[type(node.op)]}, {left}, {right})"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        op = type(node.ops[0])
        left, right = _python(node.left, constants), _python(node.comparators[0], constants)
        if op in _NEVER_RAISE:
            return f"({left} {_NEVER_RAISE[op]} {right})"
        return f"_compare({_OPERATOR_NAMES[op]}, {left}, {right})"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return f"_get({_python(node.value, constants)}, {node.slice.value!r})"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords:
        return f"_fn_{node.func.id}(" + ", ".join(_python(a, constants) for a in node.args) + ")"
    raise ExpressionError(f"not allowed in an entry expression: {ast.dump(node)[:60]}")


def _read(name: str, env: Env) -> Any:
    return env.get(name)


@lru_cache(maxsize=None)
def compile_expression(text: str) -> Callable[[Env], Any]:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ExpressionError(f"{text!r}: {err.msg}") from None
    constants: dict[str, Any] = {}
    source = _python(tree.body, constants)
    node = tree.body
    if isinstance(node, ast.Name):  # most expressions: a key read as is, which needs no compiling
        return partial(_read, node.id)
    # Compiled once per expression to one Python function: no tree of closures to walk at each evaluation.
    # Its globals hold only the language's helpers and constants; names come from env alone.
    return eval(f"lambda env: {source}", {"__builtins__": {}, **_NAMES, **constants})  # noqa: S307


def python_source(text: str, constants: dict[str, Any]) -> str:
    """An expression as Python source over `env`, its constants added to `constants`: expressions compiled
    into one function (compile_function) share one such dict."""
    return _python(ast.parse(text, mode="eval").body, constants)


def compile_function(source: str, name: str, constants: dict[str, Any]) -> Callable[..., Any]:
    """The function `name` that `source` defines, with the language's helpers and these constants as its
    only globals."""
    scope: dict[str, Any] = {"__builtins__": {}, **_NAMES, **constants}
    exec(source, scope)  # noqa: S102  (source made by this module from checked expressions)
    return scope[name]


@lru_cache(maxsize=None)
def names(text: str) -> frozenset[str]:
    """The keys an expression reads (its free names; the functions it calls are not keys)."""
    called = set()
    found = set()
    for node in ast.walk(ast.parse(text, mode="eval")):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(id(node.func))
        elif isinstance(node, ast.Name):
            found.add((id(node), node.id))
    return frozenset(name for ident, name in found if ident not in called)


def evaluate(text: str, env: Env) -> Any:
    return compile_expression(text)(env)
