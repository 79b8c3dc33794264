"""Forms from JSON schemas: the fields of a tool's input schema, a prompt's arguments, a URI template's
variables or an elicitation's requested schema, and what was entered turned into typed values (ints as
ints, booleans as bools, lists, JSON) with one clear message per wrong field.

Two purposes share one engine. ARGUMENTS (the inspector's calls by hand): required fields first, an
unchecked optional checkbox is left out, constraints are left to the whole-schema check (`collect`'s
`schema`, jsonschema). ANSWERS (elicitation: a flat object of primitives, single- and multi-select enums
with `enumNames` or `oneOf`/`anyOf` titles, SEP-1330): the schema's order, a checkbox is always an
answer, and lengths, ranges, item counts and the formats email, uri, date and date-time are checked
field by field in plain words. Anything unusual becomes a JSON field, so a server that strays still
gets an answer. UI-agnostic: `widgets/schema_form.py` draws the fields.
"""

from __future__ import annotations

import enum
import json
import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Iterable, Literal, Mapping
from urllib.parse import urlsplit

Purpose = Literal["arguments", "answers"]
ARGUMENTS: Purpose = "arguments"
ANSWERS: Purpose = "answers"
STRING, NUMBER, INTEGER, BOOLEAN, SELECT, MULTISELECT, STRINGS, JSON = (
    "string", "number", "integer", "boolean", "select", "multiselect", "strings", "json")
FORMATS = ("email", "uri", "date", "date-time")
FORMAT_HINTS = {"email": "name@example.com", "uri": "https://…", "date": "YYYY-MM-DD",
                "date-time": "YYYY-MM-DDTHH:MM:SSZ"}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


class _Unset(enum.Enum):
    UNSET = "unset"


UNSET = _Unset.UNSET  # no default in the schema; from `check_value`: leave the field out


@dataclass(frozen=True)
class Choice:
    """One option of a select: the value sent and the words shown."""

    value: Any
    label: str


@dataclass(frozen=True)
class FormField:
    """One input. `kind` picks the widget; `title` is the schema's title (the name when it has none)."""

    name: str
    kind: str = STRING
    required: bool = False
    title: str = ""
    description: str = ""
    default: Any = UNSET
    choices: tuple[Choice, ...] = ()
    json_type: str = ""
    purpose: Purpose = ARGUMENTS
    format: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None

    def __post_init__(self) -> None:
        if not self.title:
            object.__setattr__(self, "title", self.name)

    @property
    def has_default(self) -> bool:
        return self.default is not UNSET

    @property
    def type_label(self) -> str:
        """The JSON type in a few words (the inspector shows it next to the name)."""
        if self.kind == JSON:
            return f"{self.json_type} as JSON" if self.json_type in ("object", "array") else self.json_type or "JSON"
        return {STRINGS: "list of strings", SELECT: "one of", MULTISELECT: "some of"}.get(self.kind, self.kind)

    def hint(self) -> str:
        """The constraints in a few words (the elicitation form shows them next to the title)."""
        parts: list[str] = []
        if self.format:
            parts.append(self.format)
        if self.kind in (NUMBER, INTEGER):
            parts.append("whole number" if self.kind == INTEGER else "number")
            if self.minimum is not None and self.maximum is not None:
                parts.append(f"{_num(self.minimum)}–{_num(self.maximum)}")
            elif self.minimum is not None:
                parts.append(f"≥ {_num(self.minimum)}")
            elif self.maximum is not None:
                parts.append(f"≤ {_num(self.maximum)}")
        if self.min_length is not None or self.max_length is not None:
            parts.append(_range_words(self.min_length, self.max_length, "characters"))
        if self.kind == MULTISELECT:
            parts.append(_range_words(self.min_items, self.max_items, "choices") or "any number")
        if self.kind in (STRINGS, JSON):
            parts.append("list of strings" if self.kind == STRINGS else "JSON")
        return ", ".join(p for p in parts if p)


def _num(value: float) -> str:
    return f"{value:g}"


def _range_words(low: int | None, high: int | None, unit: str) -> str:
    """`2–10 characters`, `at least 1 choice`… ("" without bounds); `unit` is a plural in -s."""
    def count(n: int) -> str:
        return f"{n} {unit if n != 1 else unit[:-1]}"

    if low is not None and high is not None:
        return f"{low}–{count(high)}" if low != high else count(low)
    if low is not None:
        return f"at least {count(low)}"
    if high is not None:
        return f"at most {count(high)}"
    return ""


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _main_type(schema: Mapping[str, Any]) -> str | None:
    """The schema's type; `["string", "null"]` counts as "string", other unions as none."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if len(kinds) == 1 else None
    return kind if isinstance(kind, str) else None


def _choice_label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _titled(options: Any) -> tuple[Choice, ...] | None:
    """`oneOf`/`anyOf` of `{const, title}` as choices; None when it is not such a list."""
    if not isinstance(options, list) or not options:
        return None
    if not all(isinstance(o, Mapping) and "const" in o for o in options):
        return None
    return tuple(Choice(o["const"], str(o.get("title") or _choice_label(o["const"]))) for o in options)


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
        return tuple(Choice(v, _choice_label(v)) for v in values)
    if "const" in schema:
        return (Choice(schema["const"], _choice_label(schema["const"])),)
    return None


def field_from_property(name: str, schema: Any, required: bool, purpose: Purpose = ARGUMENTS) -> FormField:
    """The form field for one property schema."""
    schema = schema if isinstance(schema, Mapping) else {}
    json_type = _main_type(schema) or ""
    common: dict[str, Any] = dict(
        name=name, required=required, title=str(schema.get("title") or ""),
        description=str(schema.get("description") or ""), default=schema.get("default", UNSET),
        json_type=json_type, purpose=purpose)
    choices = _choices(schema)
    if choices:
        return FormField(kind=SELECT, choices=choices, **common)
    if json_type == "array":
        items = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        item_choices = _choices(items)
        if item_choices:
            return FormField(kind=MULTISELECT, choices=item_choices, min_items=_int_or_none(schema.get("minItems")),
                             max_items=_int_or_none(schema.get("maxItems")), **common)
        if _main_type(items) == STRING:
            return FormField(kind=STRINGS, **common)
    if json_type == STRING:
        fmt = schema.get("format") if schema.get("format") in FORMATS else None
        return FormField(kind=STRING, format=fmt, min_length=_int_or_none(schema.get("minLength")),
                         max_length=_int_or_none(schema.get("maxLength")), **common)
    if json_type in (NUMBER, INTEGER):
        return FormField(kind=json_type, minimum=_float_or_none(schema.get("minimum")),
                         maximum=_float_or_none(schema.get("maximum")), **common)
    if json_type == BOOLEAN:
        return FormField(kind=BOOLEAN, **common)
    return FormField(kind=JSON, **common)


def fields_from_schema(schema: Any, purpose: Purpose = ARGUMENTS) -> list[FormField]:
    """One field per property of an object schema: for ARGUMENTS required ones first (their order kept),
    for ANSWERS in the schema's order."""
    if hasattr(schema, "model_dump"):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    if not isinstance(schema, Mapping):
        return []
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        return []
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    fields = [field_from_property(str(name), prop, name in required, purpose) for name, prop in properties.items()]
    return sorted(fields, key=lambda f: not f.required) if purpose == ARGUMENTS else fields


def prompt_fields(arguments: Iterable[Any] | None) -> list[FormField]:
    """A prompt's arguments: always strings (MCP prompt arguments are string-valued)."""
    fields = []
    for argument in arguments or ():
        get = argument.get if isinstance(argument, Mapping) else lambda k, d=None: getattr(argument, k, d)
        fields.append(FormField(name=str(get("name")), required=bool(get("required", False)),
                                title=str(get("title") or ""), description=str(get("description") or "")))
    return fields


def initial_text(form_field: FormField) -> str:
    """What a text widget starts with: the schema default, written the way `check_value` reads it."""
    if not form_field.has_default or form_field.default is None:
        return ""
    value = form_field.default
    if form_field.kind == STRINGS and isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if form_field.kind == JSON:
        return json.dumps(value, ensure_ascii=False, indent=2)
    return value if isinstance(value, str) else json.dumps(value)


# -- checking what was entered -----------------------------------------------------------------------
def _check_string(form_field: FormField, text: str) -> str | None:
    """None when `text` meets the field's length and format, else why not."""
    if form_field.min_length is not None and len(text) < form_field.min_length:
        return f"needs at least {form_field.min_length} characters"
    if form_field.max_length is not None and len(text) > form_field.max_length:
        return f"may have at most {form_field.max_length} characters"
    if form_field.format == "email" and not EMAIL.match(text):
        return "must be an email address, e.g. name@example.com"
    if form_field.format == "uri":
        parts = urlsplit(text)
        if not parts.scheme or not (parts.netloc or parts.path) or " " in text:
            return "must be a full URI, e.g. https://example.com/page"
    if form_field.format == "date":
        try:
            date.fromisoformat(text)
        except ValueError:
            return "must be a date written YYYY-MM-DD, e.g. 2025-01-31"
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return "must be a date written YYYY-MM-DD, e.g. 2025-01-31"
    if form_field.format == "date-time":
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            moment = None
        if moment is None or "T" not in text.upper() or moment.tzinfo is None:
            return "must be a date and time with a time zone, e.g. 2025-01-31T14:30:00Z"
    return None


def _number(form_field: FormField, text: str) -> tuple[Any, str | None]:
    """(value, error) for a number or integer field; a whole number stays an int."""
    try:
        value: int | float = int(text)
    except ValueError:
        if form_field.kind == INTEGER:
            return None, "must be a whole number, e.g. 3"
        try:
            value = float(text)
        except ValueError:
            return None, "must be a number, e.g. 2.5"
        if not math.isfinite(value):
            return None, "must be a finite number"
    if form_field.purpose == ANSWERS:
        if form_field.minimum is not None and value < form_field.minimum:
            return None, f"must be at least {_num(form_field.minimum)}"
        if form_field.maximum is not None and value > form_field.maximum:
            return None, f"must be at most {_num(form_field.maximum)}"
    return value, None


def _json(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"


def _strings(text: str) -> tuple[Any, str | None]:
    """A list of strings: comma- or line-separated, or a JSON list."""
    if not text.startswith("["):
        return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()], None
    value, error = _json(text)
    if error is None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
        return None, "must be a JSON list of strings, e.g. [\"a\", \"b\"]"
    return value, error


def _chosen(form_field: FormField, raw: Any) -> tuple[Any, str | None]:
    """(values in the choices' order, error) for a multi-select."""
    chosen = list(raw or [])
    if not chosen:
        return (None, "choose at least one") if form_field.required else (UNSET, None)
    allowed = [c.value for c in form_field.choices]
    if any(v not in allowed for v in chosen):
        return None, "has a value that is not one of the choices"
    if form_field.purpose == ANSWERS:
        if form_field.min_items is not None and len(chosen) < form_field.min_items:
            return None, f"choose at least {form_field.min_items}"
        if form_field.max_items is not None and len(chosen) > form_field.max_items:
            return None, f"choose at most {form_field.max_items}"
    return sorted(chosen, key=allowed.index), None


def check_value(form_field: FormField, raw: Any) -> tuple[Any, str | None]:
    """(typed value, None), (UNSET, None) when the field is left out, or (None, why not).

    Raw values: text for strings, numbers, lists of strings and JSON; a bool for a checkbox; the chosen
    value (None when nothing is chosen) for a select; a list of chosen values for a multi-select.
    """
    kind = form_field.kind
    if kind == MULTISELECT:
        return _chosen(form_field, raw)
    if kind in (BOOLEAN, SELECT):
        empty = raw is None
    else:
        raw = "" if raw is None else str(raw)
        if kind != STRING:
            raw = raw.strip()
        empty = raw == ""
    if empty:
        return (None, "is required") if form_field.required else (UNSET, None)
    if kind == BOOLEAN:
        if raw is False and form_field.purpose == ARGUMENTS and not form_field.required \
                and not form_field.has_default:
            return UNSET, None  # an optional argument nobody set
        return bool(raw), None
    if kind == SELECT:
        return (raw, None) if raw in [c.value for c in form_field.choices] else (None, "is not one of the choices")
    if kind == STRING:
        error = _check_string(form_field, raw) if form_field.purpose == ANSWERS else None
        return (None, error) if error else (raw, None)
    if kind in (NUMBER, INTEGER):
        return _number(form_field, raw)
    return _strings(raw) if kind == STRINGS else _json(raw)


def collect(fields: Iterable[FormField], raw: Mapping[str, Any], schema: Any = None
            ) -> tuple[dict[str, Any], dict[str, str]]:
    """(values, errors by field name) from the entered values; `""` keys a form-wide error.

    Fields left out (empty and optional) are not in the values. With `schema`, the values are also
    checked against the whole JSON schema (ranges, patterns, lengths…), so the server never sees a call
    the form could have refused.
    """
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for form_field in fields:
        value, error = check_value(form_field, raw.get(form_field.name))
        if error:
            errors[form_field.name] = error
        elif value is not UNSET:
            values[form_field.name] = value
    if schema is not None and not errors:
        errors.update(schema_errors(schema, values))
    return values, errors


def schema_errors(schema: Any, arguments: Mapping[str, Any]) -> dict[str, str]:
    """JSON-schema validation of the whole argument object, one message per field."""
    if hasattr(schema, "model_dump"):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    if not isinstance(schema, Mapping):
        return {}
    import jsonschema  # only when a form is submitted

    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except Exception:  # noqa: BLE001 - an invalid schema: the server decides
        return {}
    errors: dict[str, str] = {}
    for error in validator_class(schema).iter_errors(dict(arguments)):
        path = list(error.absolute_path)
        if path:
            name = str(path[0])
            where = "".join(f"[{p}]" for p in path[1:])
            errors.setdefault(name, f"{where}: {error.message}" if where else error.message)
        elif error.validator == "required":
            missing = error.message.split("'")[1] if "'" in error.message else ""
            errors.setdefault(missing, "is required")
        else:
            errors.setdefault("", error.message)
    return errors
