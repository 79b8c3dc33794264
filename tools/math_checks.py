"""The static half of math's sandbox: code that imports, names or reaches for anything outside a
small calculator's world is refused before a process starts (the runner's audit hook is the other half)."""

from __future__ import annotations

import ast

from tools.errors import ToolError

ALLOWED_MODULES = frozenset({"math", "cmath", "statistics", "fractions", "decimal", "itertools", "functools",
                             "operator", "random", "collections", "numpy", "sympy", "scipy", "datetime"})
BANNED_NAMES = frozenset({"eval", "exec", "compile", "open", "input", "globals", "locals", "vars", "getattr",
                          "setattr", "delattr", "breakpoint", "help", "exit", "quit", "memoryview",
                          "__import__", "__builtins__", "__loader__", "__spec__"})
BANNED_ATTRIBUTES = frozenset({"load", "loadtxt", "fromfile", "genfromtxt", "save", "savetxt", "savez", "tofile",
                               "memmap", "ctypeslib", "ctypes", "sympify", "parse_expr", "lambdify", "system",
                               "f_globals", "f_locals", "gi_frame", "cr_frame", "tb_frame", "f_back"})


def check(code: str) -> ast.Module:
    """The parsed code, or ToolError naming the first construct that is not allowed."""
    try:
        tree = ast.parse(code, "<math>")
    except SyntaxError as exc:
        raise ToolError(f"math: syntax error at line {exc.lineno}: {exc.msg}") from None
    # the first in reading order; of nested ones (`a.__b__.__c__`) the innermost
    found = sorted(((getattr(n, "lineno", 0), getattr(n, "col_offset", 0), getattr(n, "end_col_offset", 0), p)
                    for n in ast.walk(tree) if (p := _problem(n))), key=lambda item: item[:3])
    if found:
        line, _col, _end, problem = found[0]
        raise ToolError(f"math: line {line}: {problem}. math runs plain Python calculations with "
                        f"{', '.join(sorted(ALLOWED_MODULES))} (numpy, sympy and scipy when installed)")
    return tree


def _problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.Import):
        bad = [a.name for a in node.names if a.name.split(".")[0] not in ALLOWED_MODULES]
        return f"importing {', '.join(bad)} is not allowed" if bad else None
    if isinstance(node, ast.ImportFrom):
        if node.level or (node.module or "").split(".")[0] not in ALLOWED_MODULES:
            return f"importing from {node.module or '.'} is not allowed"
        starred = [a.name for a in node.names if a.name.startswith("_")]
        return f"importing {starred[0]} is not allowed" if starred else None
    if isinstance(node, ast.Name) and (node.id in BANNED_NAMES or node.id.startswith("__")):
        return f"the name {node.id!r} is not available"
    if isinstance(node, ast.Attribute) and (node.attr.startswith("_") or node.attr in BANNED_ATTRIBUTES):
        return f"the attribute {node.attr!r} is not available"
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return "global and nonlocal are not allowed"
    if isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)):
        return "async code is not allowed"
    return None
