"""Elicitation forms: the fields of a requested schema and the typed content of what was entered.

MCP restricts a requested schema to a flat object of primitives: strings (optional format email,
uri, date, date-time; min/maxLength), numbers and integers (minimum/maximum), booleans,
single-select enums (`enum`, legacy `enumNames`, or `oneOf`/`anyOf` of `{const, title}`) and
multi-select arrays of such enums (SEP-1330). `parse_schema` turns it into `FormField`s (anything
else becomes a JSON field, so a server that strays still gets an answer); `collect` checks the raw
widget values and returns content with the right types (ints as ints, booleans as bools).
UI-agnostic: `widgets/elicitation_form.py` draws the fields.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal, Mapping
from urllib.parse import urlsplit

Kind = Literal["string", "number", "integer", "boolean", "select", "multiselect", "json"]
FORMATS = ("email", "uri", "date", "date-time")
FORMAT_HINTS = {"email": "name@example.com", "uri": "https://…", "date": "YYYY-MM-DD",
                "date-time": "YYYY-MM-DDTHH:MM:SSZ"}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


@dataclass(frozen=True)
class Choice:
    value: Any
    label: str


@dataclass(frozen=True)
class FormField:
    """One property of the requested schema, ready to be drawn and checked."""

    name: str
    kind: Kind
    title: str
    description: str = ""
    required: bool = False
    default: Any = None  # None: no default
    format: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Choice, ...] = ()
    min_items: int | None = None
    max_items: int | None = None

    def hint(self) -> str:
        """The constraints in a few words (shown next to the label)."""
        parts: list[str] = []
        if self.format:
            parts.append(self.format)
        if self.kind in ("number", "integer"):
            parts.append("whole number" if self.kind == "integer" else "number")
            if self.minimum is not None and self.maximum is not None:
                parts.append(f"{_num(self.minimum)}–{_num(self.maximum)}")
            elif self.minimum is not None:
                parts.append(f"≥ {_num(self.minimum)}")
            elif self.maximum is not None:
                parts.append(f"≤ {_num(self.maximum)}")
        if self.min_length is not None or self.max_length is not None:
            parts.append(_range_words(self.min_length, self.max_length, "characters"))
        if self.kind == "multiselect":
            parts.append(_range_words(self.min_items, self.max_items, "choices") or "any number")
        if self.kind == "json":
            parts.append("JSON")
        return ", ".join(p for p in parts if p)


def _num(value: float) -> str:
    return f"{value:g}"


def _range_words(low: int | None, high: int | None, unit: str) -> str:
    if low is not None and high is not None:
        return f"{low}–{high} {unit}" if low != high else f"{low} {unit}"
    if low is not None:
        return f"at least {low} {unit}"
    if high is not None:
        return f"at most {high} {unit}"
    return ""


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _titled(options: Any) -> tuple[Choice, ...] | None:
    """`oneOf`/`anyOf` of `{const, title}` as choices; None when it is not such a list."""
    if not isinstance(options, list) or not options:
        return None
    if not all(isinstance(o, Mapping) and "const" in o for o in options):
        return None
    return tuple(Choice(o["const"], str(o.get("title") or o["const"])) for o in options)


def _choices(schema: Mapping[str, Any]) -> tuple[Choice, ...] | None:
    """The single-select choices of a property schema (or of an array's `items`), if it has any."""
    titled = _titled(schema.get("oneOf")) or _titled(schema.get("anyOf"))
    if titled:
        return titled
    values = schema.get("enum")
    if isinstance(values, list) and values:
        names = schema.get("enumNames")
        if isinstance(names, list) and len(names) == len(values):
            return tuple(Choice(v, str(n)) for v, n in zip(values, names))
        return tuple(Choice(v, str(v)) for v in values)
    return None


def parse_field(name: str, schema: Any, required: bool) -> FormField:
    """The form field for one property schema."""
    schema = schema if isinstance(schema, Mapping) else {}
    kind_name = schema.get("type")
    common = dict(name=name, title=str(schema.get("title") or name), description=str(schema.get("description") or ""),
                  required=required, default=schema.get("default"))
    choices = _choices(schema)
    if choices:
        return FormField(kind="select", choices=choices, **common)
    if kind_name == "array":
        items = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        item_choices = _choices(items)
        if item_choices:
            return FormField(kind="multiselect", choices=item_choices, min_items=_int_or_none(schema.get("minItems")),
                             max_items=_int_or_none(schema.get("maxItems")), **common)
    if kind_name == "string":
        fmt = schema.get("format") if schema.get("format") in FORMATS else None
        return FormField(kind="string", format=fmt, min_length=_int_or_none(schema.get("minLength")),
                         max_length=_int_or_none(schema.get("maxLength")), **common)
    if kind_name in ("number", "integer"):
        return FormField(kind=kind_name, minimum=_float_or_none(schema.get("minimum")),
                         maximum=_float_or_none(schema.get("maximum")), **common)
    if kind_name == "boolean":
        return FormField(kind="boolean", **common)
    return FormField(kind="json", **common)


def parse_schema(schema: Any) -> list[FormField]:
    """One field per property, in the schema's order."""
    if not isinstance(schema, Mapping):
        return []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    return [parse_field(str(name), prop, name in required) for name, prop in properties.items()]


def initial_text(field: FormField) -> str:
    """What a text input starts with: the default, written the way `collect` reads it back."""
    default = field.default
    if default is None or isinstance(default, bool):
        return ""
    if field.kind == "json":
        return json.dumps(default)
    return default if isinstance(default, str) else _num(default) if isinstance(default, (int, float)) else str(default)


def _check_string(field: FormField, text: str) -> str | None:
    """None when `text` is fine for the field, else why not."""
    if field.min_length is not None and len(text) < field.min_length:
        return f"needs at least {field.min_length} characters"
    if field.max_length is not None and len(text) > field.max_length:
        return f"may have at most {field.max_length} characters"
    if field.format == "email" and not EMAIL.match(text):
        return "must be an email address, e.g. name@example.com"
    if field.format == "uri":
        parts = urlsplit(text)
        if not parts.scheme or not (parts.netloc or parts.path) or " " in text:
            return "must be a full URI, e.g. https://example.com/page"
    if field.format == "date":
        try:
            date.fromisoformat(text)
        except ValueError:
            return "must be a date written YYYY-MM-DD, e.g. 2025-01-31"
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return "must be a date written YYYY-MM-DD, e.g. 2025-01-31"
    if field.format == "date-time":
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            moment = None
        if moment is None or "T" not in text.upper() or moment.tzinfo is None:
            return "must be a date and time with a time zone, e.g. 2025-01-31T14:30:00Z"
    return None


def _number(field: FormField, text: str) -> tuple[int | float | None, str | None]:
    """(value, error) for a number or integer field."""
    try:
        value: int | float = int(text)
    except ValueError:
        if field.kind == "integer":
            return None, "must be a whole number, e.g. 42"
        try:
            value = float(text)
        except ValueError:
            return None, "must be a number, e.g. 3.14"
        if value != value or value in (float("inf"), float("-inf")):
            return None, "must be a finite number"
    if field.minimum is not None and value < field.minimum:
        return None, f"must be at least {_num(field.minimum)}"
    if field.maximum is not None and value > field.maximum:
        return None, f"must be at most {_num(field.maximum)}"
    return value, None


def check_value(field: FormField, raw: Any) -> tuple[Any, str | None]:
    """(typed value, error) for one field's raw widget value; value None means 'leave it out'.

    Raw values: text for strings, numbers and JSON; a bool for booleans; the chosen value (None when
    nothing is chosen) for a select; a list of chosen values for a multi-select.
    """
    if field.kind == "boolean":
        return bool(raw), None
    if field.kind == "select":
        if raw is None:
            return None, "is required" if field.required else None
        if raw not in [c.value for c in field.choices]:
            return None, "is not one of the choices"
        return raw, None
    if field.kind == "multiselect":
        chosen = list(raw or [])
        if not chosen:
            return None, "choose at least one" if field.required else None
        allowed = [c.value for c in field.choices]
        if any(v not in allowed for v in chosen):
            return None, "has a value that is not one of the choices"
        if field.min_items is not None and len(chosen) < field.min_items:
            return None, f"choose at least {field.min_items}"
        if field.max_items is not None and len(chosen) > field.max_items:
            return None, f"choose at most {field.max_items}"
        return sorted(chosen, key=allowed.index), None
    text = "" if raw is None else str(raw)
    if field.kind != "string":
        text = text.strip()
    if text == "":
        return None, "is required" if field.required else None
    if field.kind == "string":
        return (None, error) if (error := _check_string(field, text)) else (text, None)
    if field.kind in ("number", "integer"):
        return _number(field, text)
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON ({exc.msg})"


def collect(fields: list[FormField], raw: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """(content to send, errors by field name). Empty optional fields are left out of the content."""
    content: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in fields:
        value, error = check_value(field, raw.get(field.name))
        if error:
            errors[field.name] = error
        elif value is not None:
            content[field.name] = value
    return content, errors
