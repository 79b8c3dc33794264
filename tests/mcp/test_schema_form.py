"""Form fields from JSON schemas, typed arguments from what was typed, and URI templates."""

from __future__ import annotations

from app.mcp.schema_form import (ANSWERS, BOOLEAN, INTEGER, JSON, MULTISELECT, NUMBER, SELECT, STRING, STRINGS, UNSET,
                                 Choice, check_value, collect, fields_from_schema, initial_text, prompt_fields)
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
        ("mode", SELECT, True), ("query", STRING, True), ("note", STRING, False), ("count", INTEGER, False),
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


def test_one_engine_for_arguments_and_answers():
    """The same schema read for a call by hand and for an elicitation: same kinds and typed values; the
    purpose decides unchecked checkboxes, field order and where constraints are checked."""
    schema = {"type": "object", "required": ["size"], "properties": {
        "when": {"type": "string", "format": "date-time"},
        "size": {"type": "integer", "maximum": 3},
        "ok": {"type": "boolean"},
        "pick": {"type": "array", "maxItems": 1,
                 "items": {"anyOf": [{"const": 1, "title": "One"}, {"const": 2, "title": "Two"}]}},
        "names": {"type": "array", "items": {"type": "string"}},
        "ratio": {"type": ["number", "null"], "enum": [0.5, 1]}}}
    raw = {"when": "2025-01-31T14:30:00", "size": "5", "ok": False, "pick": [2, 1], "names": "a, b", "ratio": 1}
    arguments, answers = fields_from_schema(schema), fields_from_schema(schema, ANSWERS)
    assert [f.name for f in arguments] == ["size", "when", "ok", "pick", "names", "ratio"]  # required first
    assert [f.name for f in answers] == list(schema["properties"])
    assert [f.kind for f in answers] == [STRING, INTEGER, BOOLEAN, MULTISELECT, STRINGS, SELECT]
    assert answers[3].choices == (Choice(1, "One"), Choice(2, "Two")) and answers[5].choices[0].label == "0.5"
    assert [f.type_label for f in answers[3:]] == ["some of", "list of strings", "one of"]
    assert answers[1].hint() == "whole number, ≤ 3" and answers[3].hint() == "at most 1 choice"

    typed = {"when": "2025-01-31T14:30:00", "size": 5, "pick": [1, 2], "names": ["a", "b"], "ratio": 1}
    assert collect(arguments, raw) == (typed, {})  # an unchecked optional argument is left out
    assert collect(arguments, raw, schema) == (typed, {"size": "5 is greater than the maximum of 3",
                                                       "pick": "[1, 2] is too long"})
    values, errors = collect(answers, raw)
    assert values == {"ok": False, "names": ["a", "b"], "ratio": 1}  # a checkbox is always an answer
    assert errors == {"when": "must be a date and time with a time zone, e.g. 2025-01-31T14:30:00Z",
                      "size": "must be at most 3", "pick": "choose at most 1"}
    assert check_value(answers[1], "nan") == (None, "must be a whole number, e.g. 3")
    assert check_value(arguments[5], 3) == (None, "is not one of the choices")
    assert check_value(fields_from_schema({"properties": {"x": {"type": "number"}}})[0], "inf") == (
        None, "must be a finite number")
    assert check_value(fields_from_schema({"properties": {"x": {}}})[0], "null") == (None, None)  # JSON null is sent
    assert check_value(arguments[1], "") == (UNSET, None)
