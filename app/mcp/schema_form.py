"""Form fields from a JSON schema (tool inputs, prompt arguments, URI template variables) and
turning what the user typed into arguments, with one clear message per wrong field.

UI-agnostic: the inspector draws a widget per `FormField` and hands the raw values back to `collect`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

STRING, NUMBER, INTEGER, BOOLEAN, ENUM, STRINGS, JSON = (
    "string", "number", "integer", "boolean", "enum", "strings", "json")
NO_DEFAULT = object()


@dataclass(frozen=True)
class FormField:
    """One input. `kind` picks the widget; `choices` are the enum values; `default` is NO_DEFAULT or a value."""

    name: str
    kind: str = STRING
    required: bool = False
    description: str = ""
    default: Any = NO_DEFAULT
    choices: tuple[Any, ...] = ()
    type_label: str = "string"
    schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


def _main_type(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if len(kinds) == 1 else None
    return kind if isinstance(kind, str) else None


def field_from_property(name: str, schema: Any, required: bool) -> FormField:
    """The widget kind for one property schema; anything unusual is edited as JSON."""
    schema = schema if isinstance(schema, Mapping) else {}
    kind_name = _main_type(schema)
    description = str(schema.get("description") or schema.get("title") or "")
    default = schema.get("default", NO_DEFAULT)
    choices: tuple[Any, ...] = ()
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        kind, choices = ENUM, tuple(schema["enum"])
    elif "const" in schema:
        kind, choices = ENUM, (schema["const"],)
    elif kind_name in (STRING, NUMBER, INTEGER, BOOLEAN):
        kind = kind_name
    elif kind_name == "array" and _main_type(schema.get("items") or {}) == STRING \
            and not (schema.get("items") or {}).get("enum"):
        kind = STRINGS
    else:
        kind = JSON
    label = {STRINGS: "list of strings", JSON: kind_name or "JSON", ENUM: "one of"}.get(kind, kind)
    if kind == JSON and kind_name in ("object", "array"):
        label = f"{kind_name} as JSON"
    return FormField(name=name, kind=kind, required=required, description=description, default=default,
                     choices=choices, type_label=label, schema=dict(schema))


def fields_from_schema(schema: Any) -> list[FormField]:
    """One field per property of an object schema, required ones first (their schema order kept)."""
    if hasattr(schema, "model_dump"):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    if not isinstance(schema, Mapping):
        return []
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
    if not isinstance(properties, Mapping):
        return []
    fields = [field_from_property(str(name), prop, name in required) for name, prop in properties.items()]
    return sorted(fields, key=lambda f: not f.required)


def prompt_fields(arguments: Iterable[Any] | None) -> list[FormField]:
    """A prompt's arguments: always strings (MCP prompt arguments are string-valued)."""
    fields = []
    for argument in arguments or ():
        get = argument.get if isinstance(argument, Mapping) else lambda k, d=None: getattr(argument, k, d)
        fields.append(FormField(name=str(get("name")), required=bool(get("required", False)),
                                description=str(get("description") or get("title") or "")))
    return fields


def initial_text(form_field: FormField) -> str:
    """What a text widget starts with: the schema default, written the way `parse_value` reads it."""
    if not form_field.has_default or form_field.default is None:
        return ""
    value = form_field.default
    if form_field.kind == STRINGS and isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if form_field.kind == JSON:
        return json.dumps(value, ensure_ascii=False, indent=2)
    if isinstance(value, str):
        return value
    return json.dumps(value)


class FieldError(ValueError):
    """A value the field cannot take; the message is shown under the field."""


def parse_value(form_field: FormField, raw: Any) -> Any:
    """The argument value for what was entered (text, a checkbox state or a chosen enum value)."""
    kind = form_field.kind
    if kind in (BOOLEAN, ENUM):
        return raw
    text = "" if raw is None else str(raw)
    if kind == STRING:
        return text
    stripped = text.strip()
    if kind == INTEGER:
        try:
            return int(stripped)
        except ValueError:
            raise FieldError("must be a whole number, e.g. 3") from None
    if kind == NUMBER:
        try:
            return int(stripped)
        except ValueError:
            pass
        try:
            return float(stripped)
        except ValueError:
            raise FieldError("must be a number, e.g. 2.5") from None
    if kind == STRINGS:
        if stripped.startswith("["):
            value = _json(stripped)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise FieldError("must be a JSON list of strings, e.g. [\"a\", \"b\"]")
            return value
        return [part.strip() for part in stripped.replace("\n", ",").split(",") if part.strip()]
    return _json(stripped)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FieldError(f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None


def _is_empty(form_field: FormField, raw: Any) -> bool:
    if form_field.kind in (BOOLEAN, ENUM):
        return raw is None
    return raw is None or (str(raw).strip() == "" if form_field.kind != STRING else str(raw) == "")


def collect(fields: Iterable[FormField], raw: Mapping[str, Any], schema: Any = None
            ) -> tuple[dict[str, Any], dict[str, str]]:
    """(arguments, errors by field name) from the entered values; `""` keys a form-wide error.

    An empty optional field is left out; an optional checkbox that is off and has no default is
    left out too. With `schema`, the arguments are also checked against the whole JSON schema
    (ranges, patterns, lengths…), so the server never sees a call the form could have refused.
    """
    arguments: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for form_field in fields:
        value = raw.get(form_field.name)
        if _is_empty(form_field, value):
            if form_field.required:
                errors[form_field.name] = "is required"
            continue
        if form_field.kind == BOOLEAN and value is False and not form_field.required \
                and not form_field.has_default:
            continue
        try:
            arguments[form_field.name] = parse_value(form_field, value)
        except FieldError as exc:
            errors[form_field.name] = str(exc)
    if schema is not None and not errors:
        errors.update(schema_errors(schema, arguments))
    return arguments, errors


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
