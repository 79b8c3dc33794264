"""MCP shapes → Whimbrel shapes: tool input schemas → OpenAI function schemas, results → text."""

from __future__ import annotations

import json
from typing import Any

MAX_DESCRIPTION = 4000
PERMISSIVE = {"type": "object", "properties": {}, "additionalProperties": True}


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    """Attribute or key access, so SDK models and plain dicts both work.

    A pydantic model's fields (and extras) are read from its dicts: `hasattr`/`getattr` on a name
    the model lacks runs its raising `__getattr__`, which cost more than the rest of a result's
    conversion (this runs on every tool call).
    """
    if isinstance(obj, dict):
        for name in names:
            if name in obj:
                return obj[name]
        return default
    if hasattr(type(obj), "__pydantic_fields__"):
        fields, extra = obj.__dict__, obj.__pydantic_extra__ or {}
        for name in names:
            value = fields[name] if name in fields else extra.get(name)
            if value is not None:
                return value
        return default
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return default


def convert_input_schema(schema: Any) -> tuple[dict[str, Any], str | None]:
    """A function-calling `parameters` object, and a problem note when the schema had to be replaced.

    Models require a JSON object schema: a missing or non-object schema becomes an empty object; a
    schema that is not valid JSON Schema becomes a permissive object (the server still validates).
    """
    if schema is None:
        return dict(PERMISSIVE), None
    if hasattr(schema, "model_dump"):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    if not isinstance(schema, dict):
        return dict(PERMISSIVE), f"input schema is not an object ({type(schema).__name__}); accepting any arguments"
    converted = {k: v for k, v in schema.items() if k not in ("$schema",)}
    if converted.get("type") not in (None, "object"):
        return dict(PERMISSIVE), f"input schema has type {converted.get('type')!r}, not 'object'; " \
                                 "accepting any arguments"
    converted["type"] = "object"
    if not isinstance(converted.get("properties", {}), dict):
        return dict(PERMISSIVE), "input schema 'properties' is not an object; accepting any arguments"
    converted.setdefault("properties", {})
    try:
        import jsonschema

        jsonschema.validators.validator_for(converted).check_schema(converted)
    except Exception as exc:  # noqa: BLE001 - SchemaError, or anything a weird schema provokes
        message = getattr(exc, "message", str(exc))
        return dict(PERMISSIVE), f"input schema is invalid ({message}); accepting any arguments"
    return converted, None


def function_schema(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    if len(description) > MAX_DESCRIPTION:
        description = description[:MAX_DESCRIPTION] + "…"
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def describe_bytes(data: str | None) -> int:
    """Approximate decoded size of base64 data."""
    data = (data or "").strip()
    return max(0, (len(data) * 3) // 4 - data[-2:].count("="))


def content_to_text(block: Any) -> str:
    """One content block as text; binary content becomes a description."""
    kind = _get(block, "type", default="")
    if kind == "text":
        return _get(block, "text", default="")
    if kind in ("image", "audio"):
        mime = _get(block, "mime_type", "mimeType", default="unknown type")
        return f"[{kind}: {mime}, {describe_bytes(_get(block, 'data'))} bytes]"
    if kind == "resource_link":
        uri = str(_get(block, "uri", default=""))
        name = _get(block, "title", "name", default="") or uri
        mime = _get(block, "mime_type", "mimeType", default="")
        desc = _get(block, "description", default="")
        extra = f" ({mime})" if mime else ""
        return f"[resource link: {name} <{uri}>{extra}]" + (f" {desc}" if desc else "")
    if kind == "resource":
        return resource_contents_to_text(_get(block, "resource"))
    return f"[{kind or 'unknown'} content]"


def resource_contents_to_text(contents: Any) -> str:
    uri = str(_get(contents, "uri", default=""))
    text = _get(contents, "text")
    if text is not None:
        return text if not uri else f"[resource {uri}]\n{text}"
    mime = _get(contents, "mime_type", "mimeType", default="unknown type")
    return f"[resource {uri}: {mime}, {describe_bytes(_get(contents, 'blob'))} bytes of binary data]"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def call_result_to_text(result: Any) -> tuple[str, bool]:
    """(text for the model, is_error) from a CallToolResult.

    Text blocks are kept as they are; structured content is added as JSON unless a text block
    already carries the same value; images and audio become descriptions. Runs on every tool
    call, so it reads each field once and keeps Python-level calls few.
    """
    blocks = _get(result, "content", default=[]) or []
    parts: list[str] = []
    texts: list[str] = []
    for block in blocks:
        part = content_to_text(block)
        parts.append(part)
        if _get(block, "type") == "text":
            texts.append(part)
    structured = _get(result, "structured_content", "structuredContent")
    if structured is not None and not _carried_by_text(structured, texts):
        parts.append("structured content:\n" + _json(structured))
    is_error = bool(_get(result, "is_error", "isError", default=False))
    text = "\n".join(filter(None, parts))
    if not text:
        text = "The tool reported an error without details." if is_error else "(no output)"
    return text, is_error


def _carried_by_text(structured: Any, texts: list[str]) -> bool:
    """Does a text block already hold the structured value, as text or JSON? SDK servers wrap a
    plain return value as {"result": value} next to its text form."""
    candidates = [structured]
    if isinstance(structured, dict) and len(structured) == 1 and "result" in structured:
        candidates.append(structured["result"])
    for text in texts:
        for candidate in candidates:
            if text == str(candidate):
                return True
    for text in texts:
        try:
            value = json.loads(text)
        except (ValueError, TypeError):
            continue
        if value in candidates:
            return True
    return False


def read_result_to_text(result: Any) -> str:
    contents = _get(result, "contents", default=[]) or []
    return "\n".join(resource_contents_to_text(c) for c in contents) or "(empty resource)"


def prompt_result_to_text(result: Any) -> str:
    lines = []
    desc = _get(result, "description")
    if desc:
        lines.append(f"# {desc}")
    for message in _get(result, "messages", default=[]) or []:
        lines.append(f"[{_get(message, 'role', default='?')}]\n{content_to_text(_get(message, 'content'))}")
    return "\n\n".join(lines) or "(the prompt has no messages)"


def dump_sent(obj: Any) -> Any:
    """What the server sent, JSON-ready: only the fields the message carried (the SDK's models add defaults such
    as `isError: false`, `resultType`, `ttlMs: 0`, `cacheScope` that the server never sent)."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(by_alias=True, exclude_unset=True, mode="json")
    if isinstance(obj, (list, tuple)):
        return [dump_sent(o) for o in obj]
    return obj


def dump(obj: Any) -> Any:
    """A JSON-ready value from an SDK model (camelCase, no None fields)."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(obj, list):
        return [dump(o) for o in obj]
    return obj
