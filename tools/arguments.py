"""Turning a model's raw argument text into a validated dict, or into an error it can act on."""

from __future__ import annotations

import json
from typing import Any

from tools.errors import ToolError
from tools.registry import ToolSpec

QUOTE_CHARS = 200
MAX_VIOLATIONS = 5
_JSON_KINDS = {str: "string", int: "number", float: "number", bool: "boolean", list: "array",
               type(None): "null"}


def _quote(raw: str) -> str:
    text = raw[:QUOTE_CHARS]
    return repr(text) + ("…" if len(raw) > QUOTE_CHARS else "")


def parse_arguments(raw: str, spec: ToolSpec) -> dict[str, Any]:
    """Parse the JSON object; a bare string goes to the tool's primary key (small models send those).

    Text starting with "{" is a broken object, never a bare value: it gets the JSON error.
    """
    text = (raw or "").strip()
    if not text:
        return {}
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        value, problem = None, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    else:
        problem = f"a JSON {_JSON_KINDS.get(type(value), 'value')}"
    if isinstance(value, dict):
        return value
    if spec.primary_key and not text.startswith("{"):
        return {spec.primary_key: value if isinstance(value, str) else text}
    raise ToolError(f"Arguments for {spec.name} must be a JSON object with named parameters, but got "
                    f"{problem}: {_quote(text)}")


def _describe_parameters(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", ()))
    parts = [f"{name} ({prop.get('type', 'any')}{', required' if name in required else ''})"
             for name, prop in schema.get("properties", {}).items()]
    return ", ".join(parts)


def _violation(error: Any) -> str:
    field = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required" and not field:
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required argument '{missing}'"
    return f"argument '{field}': {error.message}" if field else error.message


def validate_arguments(args: dict[str, Any], spec: ToolSpec) -> None:
    """Check `args` against the tool's JSON schema; raise ToolError naming each bad field."""
    import jsonschema  # lazy: keeps app startup fast

    validator_cls = jsonschema.validators.validator_for(spec.parameters)
    validator = validator_cls(spec.parameters)
    errors = sorted(validator.iter_errors(args), key=lambda e: (list(e.absolute_path), e.message))
    if not errors:
        return
    problems = "; ".join(_violation(e) for e in errors[:MAX_VIOLATIONS])
    raise ToolError(f"Invalid arguments for {spec.name}: {problems}. "
                    f"Parameters: {_describe_parameters(spec.parameters)}.")
