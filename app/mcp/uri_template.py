"""RFC 6570 URI templates (levels 1–3, string values) for MCP resource templates.

    fields = template_fields("file:///{+path}{?rev}")   # path required, rev optional
    expand("file:///{+path}{?rev}", {"path": "a/b.txt"}) == "file:///a/b.txt"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import quote

from app.mcp.schema_form import FormField

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_RESERVED = ":/?#[]@!$&'()*+,;="


@dataclass(frozen=True)
class _Operator:
    first: str
    sep: str
    named: bool
    if_empty: str
    reserved: bool


OPERATORS = {
    "": _Operator("", ",", False, "", False),
    "+": _Operator("", ",", False, "", True),
    "#": _Operator("#", ",", False, "", True),
    ".": _Operator(".", ".", False, "", False),
    "/": _Operator("/", "/", False, "", False),
    ";": _Operator(";", ";", True, "", False),
    "?": _Operator("?", "&", True, "=", False),
    "&": _Operator("&", "&", True, "=", False),
}


def _parse(expression: str) -> tuple[_Operator, list[tuple[str, int | None]]]:
    op = expression[:1] if expression[:1] in OPERATORS and expression[:1] != "" else ""
    body = expression[len(op):]
    names: list[tuple[str, int | None]] = []
    for spec in body.split(","):
        spec = spec.strip().rstrip("*")
        name, _, prefix = spec.partition(":")
        if name:
            names.append((name, int(prefix) if prefix.isdigit() else None))
    return OPERATORS[op], names


def variables(template: str) -> list[tuple[str, bool]]:
    """(name, required) for each variable in order; query/fragment-style ones are optional."""
    seen: dict[str, bool] = {}
    for match in _EXPRESSION.finditer(template):
        op, names = _parse(match.group(1))
        for name, _prefix in names:
            seen.setdefault(name, op.first not in ("?", "&", "#", ";"))
    return list(seen.items())


def template_fields(template: str, description: str = "") -> list[FormField]:
    """One text field per variable of the template."""
    return [FormField(name=name, required=required, description=description if i == 0 else "")
            for i, (name, required) in enumerate(variables(template))]


def expand(template: str, values: Mapping[str, str]) -> str:
    """The URI with each variable filled in (missing or empty optional ones dropped, as the RFC says)."""
    def replace(match: re.Match[str]) -> str:
        op, names = _parse(match.group(1))
        parts = []
        for name, prefix in names:
            value = values.get(name)
            if value is None:
                continue
            value = str(value)
            if prefix is not None:
                value = value[:prefix]
            encoded = quote(value, safe=_RESERVED if op.reserved else "")
            if op.named:
                parts.append(f"{name}{op.if_empty if not value else '=' + encoded}")
            else:
                parts.append(encoded)
        return op.first + op.sep.join(parts) if parts else ""

    return _EXPRESSION.sub(replace, template)
