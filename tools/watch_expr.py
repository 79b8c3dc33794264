"""watch's `stop_on`: a small expression language over `output`, `data`, `exit_code`, `prev_output`
and `changed`, interpreted node by node from an AST whitelist (never eval), with bounded sizes."""

from __future__ import annotations

import ast
import operator
from typing import Any

from tools.errors import ToolError

NAMES = ("output", "data", "exit_code", "prev_output", "changed")
MAX_LENGTH = 500
FUNCTIONS = {"len": len, "str": str, "int": int, "float": float, "bool": bool, "abs": abs, "min": min, "max": max,
             "any": any, "all": all, "sorted": sorted}
METHODS = {str: {"lower", "upper", "strip", "startswith", "endswith", "split", "count", "splitlines", "find"},
           dict: {"get", "keys", "values"}, list: {"count", "index"}}
COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
           ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not}
ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: operator.mod,
              ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv}
MAX_PRODUCT = 1_000_000  # "x" * 10**9 would exhaust memory


def parse(expression: str) -> ast.Expression:
    """Check that `expression` only uses what `evaluate` knows; ToolError naming what it does not."""
    if len(expression) > MAX_LENGTH:
        raise ToolError(f"stop_on is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression, "<stop_on>", mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"stop_on is not a valid expression: {exc.msg}") from None
    # in reading order, innermost first, so the message names what the writer sees first
    for node in sorted(ast.walk(tree), key=lambda n: (getattr(n, "col_offset", 10**6), getattr(n, "end_col_offset", 10**6))):
        _check(node)
    return tree


def _check(node: ast.AST) -> None:
    allowed = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.Compare,
               ast.Constant, ast.Name, ast.Load, ast.Subscript, ast.Call, ast.Attribute, ast.BinOp, ast.List,
               ast.Tuple, ast.IfExp, *COMPARE, *ARITHMETIC)
    if not isinstance(node, allowed):
        raise ToolError(f"stop_on may not use {type(node).__name__}; it is a condition such as "
                        f"'\"ready\" in output' or 'data[\"state\"] == \"MERGED\"'")
    if isinstance(node, ast.Name) and node.id not in NAMES + tuple(FUNCTIONS) + ("True", "False", "None"):
        raise ToolError(f"stop_on knows {', '.join(NAMES)} and {', '.join(FUNCTIONS)}, not {node.id!r}")
    if isinstance(node, ast.Attribute) and (node.attr.startswith("_") or
                                            node.attr not in set().union(*METHODS.values())):
        raise ToolError(f"stop_on may not use the attribute {node.attr!r}")
    if isinstance(node, ast.Call) and (node.keywords or not isinstance(node.func, (ast.Name, ast.Attribute))):
        raise ToolError("stop_on may only call len, str, int, … and string methods, without keywords")
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        raise ToolError("stop_on may index (data['x'], output[0]) but not slice")


def evaluate(tree: ast.Expression, variables: dict[str, Any]) -> bool:
    """The condition's truth for one poll; an error (data['x'] on None) means "not yet"."""
    try:
        return bool(_eval(tree.body, variables))
    except (TypeError, KeyError, IndexError, ValueError, AttributeError, ZeroDivisionError, ToolError):
        return False


def _eval(node: ast.AST, env: dict[str, Any]) -> Any:
    match node:
        case ast.Constant(value=value):
            return value
        case ast.Name(id=name):
            return FUNCTIONS[name] if name in FUNCTIONS else {"True": True, "False": False, "None": None}.get(
                name, env.get(name))
        case ast.BoolOp(op=ast.And(), values=values):
            return all(_eval(v, env) for v in values)
        case ast.BoolOp(values=values):
            return any(_eval(v, env) for v in values)
        case ast.UnaryOp(op=ast.Not(), operand=operand):
            return not _eval(operand, env)
        case ast.UnaryOp(operand=operand):
            return -_eval(operand, env)
        case ast.IfExp(test=test, body=body, orelse=orelse):
            return _eval(body, env) if _eval(test, env) else _eval(orelse, env)
        case ast.Compare(left=left, ops=ops, comparators=comparators):
            current = _eval(left, env)
            for op, right in zip(ops, comparators):
                value = _eval(right, env)
                if not COMPARE[type(op)](current, value):
                    return False
                current = value
            return True
        case ast.BinOp(left=left, op=op, right=right):
            a, b = _eval(left, env), _eval(right, env)
            if isinstance(op, ast.Mult) and (isinstance(a, (str, list)) or isinstance(b, (str, list))):
                size = (len(a) if isinstance(a, (str, list)) else abs(int(a))) * \
                       (len(b) if isinstance(b, (str, list)) else abs(int(b)))
                if size > MAX_PRODUCT:
                    raise ToolError("too large")
            return ARITHMETIC[type(op)](a, b)
        case ast.Subscript(value=value, slice=index):
            return _eval(value, env)[_eval(index, env)]
        case ast.List(elts=elts) | ast.Tuple(elts=elts):
            return [_eval(e, env) for e in elts]
        case ast.Call(func=ast.Attribute(value=target, attr=attr), args=args):
            obj = _eval(target, env)
            if attr not in METHODS.get(type(obj), set()):
                raise ToolError(f"no method {attr}")
            return getattr(obj, attr)(*[_eval(a, env) for a in args])
        case ast.Call(func=ast.Name(id=name), args=args) if name in FUNCTIONS:
            return FUNCTIONS[name](*[_eval(a, env) for a in args])
    raise ToolError(f"cannot evaluate {type(node).__name__}")
