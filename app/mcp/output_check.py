"""A tool result's `structuredContent` checked against the tool's `outputSchema` (JSON Schema), as the
spec asks of clients: every problem is listed with where it is, so the inspector can show them all.
"""

from __future__ import annotations

from typing import Any


def output_problems(output_schema: Any, structured: Any, *, is_error: bool = False) -> list[str]:
    """Why `structured` breaks `output_schema` (empty: it conforms, or there is nothing to check).

    An error result is not checked (the spec exempts it); a tool that declares an output schema must
    send structured content, so its absence is a problem too."""
    if not output_schema or is_error:
        return []
    if structured is None:
        return ["the tool declares an outputSchema but sent no structuredContent"]
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_cls = validator_for(output_schema)
        validator_cls.check_schema(output_schema)
    except SchemaError as exc:
        return [f"the outputSchema itself is not valid JSON Schema: {exc.message}"]
    problems = []
    for error in sorted(validator_cls(output_schema).iter_errors(structured), key=lambda e: list(e.path)):
        where = "/".join(str(part) for part in error.path)
        problems.append(f"{'at /' + where if where else 'at the top'}: {error.message}")
    return problems
