"""Form fields from JSON schemas, typed arguments from what was typed, and URI templates."""

from __future__ import annotations

from app.mcp.schema_form import (BOOLEAN, ENUM, INTEGER, JSON, NUMBER, STRING, STRINGS, collect, fields_from_schema,
                                 initial_text, prompt_fields)
from app.mcp.uri_template import expand, template_fields, variables

SCHEMA = {
    "type": "object",
    "properties": {
        "note": {"type": ["string", "null"]},
        "count": {"type": "integer", "minimum": 1, "default": 3},
        "ratio": {"type": "number"},
        "on": {"type": "boolean"},
        "mode": {"enum": ["a", "b"]},
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["x", "y"]},
        "matrix": {"type": "array", "items": {"type": "number"}},
        "opts": {"type": "object", "default": {"k": 1}},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "query": {"type": "string", "minLength": 2},
    },
    "required": ["query", "mode"],
}


def test_field_kinds_required_first_and_defaults_as_text():
    fields = fields_from_schema(SCHEMA)
    assert [(f.name, f.kind, f.required) for f in fields] == [
        ("mode", ENUM, True), ("query", STRING, True), ("note", STRING, False), ("count", INTEGER, False),
        ("ratio", NUMBER, False), ("on", BOOLEAN, False), ("tags", STRINGS, False), ("matrix", JSON, False),
        ("opts", JSON, False), ("either", JSON, False)]
    by_name = {f.name: f for f in fields}
    assert initial_text(by_name["count"]) == "3" and initial_text(by_name["tags"]) == "x, y"
    assert initial_text(by_name["opts"]) == '{\n  "k": 1\n}' and initial_text(by_name["note"]) == ""
    assert fields_from_schema(None) == [] and fields_from_schema({"type": "object"}) == []


def test_collect_types_values_and_explains_mistakes():
    fields = fields_from_schema(SCHEMA)
    raw = {"mode": "b", "query": "hi", "note": "", "count": "7", "ratio": "2.5", "on": True, "tags": '["p", "q"]',
           "matrix": "[1, 2]", "opts": "", "either": "5"}
    arguments, errors = collect(fields, raw, SCHEMA)
    assert errors == {}
    assert arguments == {"mode": "b", "query": "hi", "count": 7, "ratio": 2.5, "on": True, "tags": ["p", "q"],
                         "matrix": [1, 2], "either": 5}
    _, errors = collect(fields, {"mode": None, "query": "", "count": "x", "ratio": "1e", "on": False,
                                 "matrix": "[1,", "tags": "[1]"})
    assert errors == {"mode": "is required", "query": "is required", "count": "must be a whole number, e.g. 3",
                      "ratio": "must be a number, e.g. 2.5",
                      "matrix": "is not valid JSON: Expecting value (line 1, column 4)",
                      "tags": 'must be a JSON list of strings, e.g. ["a", "b"]'}
    _, errors = collect(fields, {"mode": "a", "query": "h", "count": "0", "matrix": '[1, "2"]'}, SCHEMA)
    assert errors == {"query": "'h' is too short", "count": "0 is less than the minimum of 1",  # the whole schema
                      "matrix": "[1]: '2' is not of type 'number'"}


def test_prompt_arguments_are_string_fields():
    fields = prompt_fields([{"name": "topic", "required": True, "description": "What"}, {"name": "tone"}])
    assert [(f.name, f.kind, f.required, f.description) for f in fields] == [
        ("topic", STRING, True, "What"), ("tone", STRING, False, "")]


def test_uri_templates():
    template = "notes://{year}/{+path}{?rev,lang}{#part}"
    assert variables(template) == [("year", True), ("path", True), ("rev", False), ("lang", False), ("part", False)]
    assert [f.name for f in template_fields(template)] == ["year", "path", "rev", "lang", "part"]
    assert expand(template, {"year": "2024", "path": "a b/c", "rev": "3"}) == "notes://2024/a%20b/c?rev=3"
    assert expand("x://{id}", {"id": "a/b c"}) == "x://a%2Fb%20c"
    assert expand("x:{/seg}{.ext}{;v}{&k}", {"seg": "s", "ext": "md", "v": "", "k": "1"}) == "x:/s.md;v&k=1"
    assert expand("x://{a:3}", {"a": "abcdef"}) == "x://abc"
