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
from functools import lru_cache
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


def _layers(n: Any, kind: str) -> list[str] | None:
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
    mscale = 1.0 if factor <= 1 else 0.1 * mscale_all_dim * math.log(factor) + 1.0
    return qk_head_dim / mscale**4 if mscale else None


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "layers": _layers,
    "sliding_from": _sliding_from,
    "pattern": _pattern,
    "qwen2_moe_layers": _qwen2_moe_layers,
    "get": _get,
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


def _compile(node: ast.AST) -> Callable[[Env], Any]:
    if isinstance(node, ast.Constant):
        value = node.value
        return lambda env: value
    if isinstance(node, ast.Name):
        name = node.id
        if name in ("None", "True", "False"):
            raise ExpressionError(f"use the literal {name}")
        return lambda env: env.get(name)
    if isinstance(node, ast.List):
        items = [_compile(e) for e in node.elts]
        return lambda env: [item(env) for item in items]
    if isinstance(node, ast.BoolOp):
        parts = [_compile(v) for v in node.values]
        if isinstance(node.op, ast.Or):
            def either(env: Env) -> Any:
                value = None
                for part in parts:
                    value = part(env)
                    if value:
                        return value
                return value
            return either
        def both(env: Env) -> Any:
            value = None
            for part in parts:
                value = part(env)
                if not value:
                    return value
            return value
        return both
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _compile(node.operand)
        return lambda env: not inner(env)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _compile(node.operand)
        return lambda env: -v if _number(v := inner(env)) else None
    if isinstance(node, ast.IfExp):
        test, body, orelse = _compile(node.test), _compile(node.body), _compile(node.orelse)
        return lambda env: body(env) if test(env) else orelse(env)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        op, left, right = _BINARY[type(node.op)], _compile(node.left), _compile(node.right)
        def arithmetic(env: Env) -> Any:
            a, b = left(env), right(env)
            if not (_number(a) and _number(b)):
                return None
            try:
                return op(a, b)
            except (ZeroDivisionError, OverflowError):
                return None
        return arithmetic
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        op, left, right = _COMPARE[type(node.ops[0])], _compile(node.left), _compile(node.comparators[0])
        def compare(env: Env) -> Any:
            try:
                return op(left(env), right(env))
            except TypeError:
                return None
        return compare
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        obj, key = _compile(node.value), node.slice.value
        return lambda env: _get(obj(env), key)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords:
        fn, args = FUNCTIONS[node.func.id], [_compile(a) for a in node.args]
        return lambda env: fn(*(a(env) for a in args))
    raise ExpressionError(f"not allowed in an entry expression: {ast.dump(node)[:60]}")


@lru_cache(maxsize=None)
def compile_expression(text: str) -> Callable[[Env], Any]:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ExpressionError(f"{text!r}: {err.msg}") from None
    return _compile(tree.body)


def evaluate(text: str, env: Env) -> Any:
    return compile_expression(text)(env)
