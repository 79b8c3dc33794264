"""Requested schema -> form fields -> typed content, and the checks made before accepting."""

from __future__ import annotations

import dataclasses

import pytest

from app.mcp.schema_form import ANSWERS, UNSET, Choice, check_value, collect, fields_from_schema, initial_text

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 10},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meet": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 1, "maximum": 120, "default": 42},
        "score": {"type": "number", "minimum": 0, "maximum": 10},
        "agree": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["red", "green"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}],
                 "default": "h2"},
        "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]},
        "tools": {"type": "array", "minItems": 1, "maxItems": 2,
                  "items": {"type": "string", "enum": ["saw", "drill", "hammer"]}, "default": ["saw"]},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2", "title": "Trout"}]}},
        "extra": {"type": "object"},
    },
    "required": ["name", "age", "color"],
}


def answer_fields(schema):
    return fields_from_schema(schema, ANSWERS)


def fields_by_name():
    return {f.name: f for f in answer_fields(SCHEMA)}


def test_each_property_becomes_the_right_field():
    fields = fields_by_name()
    assert list(fields) == list(SCHEMA["properties"])  # schema order kept
    kinds = {name: f.kind for name, f in fields.items()}
    assert kinds == {"name": "string", "email": "string", "site": "string", "born": "string", "meet": "string",
                     "age": "integer", "score": "number", "agree": "boolean", "color": "select", "hero": "select",
                     "pet": "select", "tools": "multiselect", "fish": "multiselect", "extra": "json"}
    assert [f.name for f in fields.values() if f.required] == ["name", "age", "color"]
    assert fields["hero"].choices == (Choice("h1", "Superman"), Choice("h2", "Batman"))
    assert fields["pet"].choices == (Choice("p1", "Cats"), Choice("p2", "Dogs"))
    assert fields["fish"].choices[1] == Choice("f2", "Trout")
    assert fields["tools"].min_items == 1 and fields["tools"].max_items == 2
    assert fields["email"].format == "email" and fields["name"].title == "Name" and fields["email"].title == "email"
    assert fields["age"].hint() == "whole number, 1–120" and fields["tools"].hint() == "1–2 choices"
    assert fields["name"].hint() == "2–10 characters"
    assert initial_text(fields["age"]) == "42" and initial_text(fields["name"]) == ""


def test_defaults_and_entries_come_back_typed():
    raw = {"name": "Ann", "email": "ann@example.com", "site": "https://ann.dev/x", "born": "1990-02-28",
           "meet": "2025-01-31T14:30:00Z", "age": " 42 ", "score": "2.5", "agree": False, "color": "red",
           "hero": "h2", "pet": None, "tools": ["hammer", "saw"], "fish": [], "extra": '{"a": [1]}'}
    content, errors = collect(answer_fields(SCHEMA), raw)
    assert errors == {}
    assert content == {"name": "Ann", "email": "ann@example.com", "site": "https://ann.dev/x", "born": "1990-02-28",
                       "meet": "2025-01-31T14:30:00Z", "age": 42, "score": 2.5, "agree": False, "color": "red",
                       "hero": "h2", "tools": ["saw", "hammer"], "extra": {"a": [1]}}
    assert type(content["age"]) is int and content["agree"] is False  # ints as ints, booleans as bools
    assert check_value(fields_by_name()["score"], "3")[0] == 3  # a whole number stays an int


@pytest.mark.parametrize("name, raw, message", [
    ("name", "", "is required"),
    ("name", "A", "needs at least 2 characters"),
    ("name", "A" * 11, "may have at most 10 characters"),
    ("email", "ann@", "must be an email address"),
    ("site", "ann.dev", "must be a full URI"),
    ("born", "28.02.1990", "must be a date written YYYY-MM-DD"),
    ("born", "1990-02-30", "must be a date written YYYY-MM-DD"),
    ("meet", "2025-01-31", "must be a date and time with a time zone"),
    ("meet", "2025-01-31T14:30:00", "must be a date and time with a time zone"),
    ("age", "4.5", "must be a whole number"),
    ("age", "0", "must be at least 1"),
    ("age", "121", "must be at most 120"),
    ("age", "", "is required"),
    ("score", "ten", "must be a number"),
    ("score", "nan", "must be a finite number"),
    ("score", "10.5", "must be at most 10"),
    ("color", None, "is required"),
    ("color", "blue", "is not one of the choices"),
    ("tools", ["saw", "drill", "hammer"], "choose at most 2"),
    ("tools", ["axe"], "not one of the choices"),
    ("extra", "{oops", "is not valid JSON"),
])
def test_wrong_values_get_a_clear_message(name, raw, message):
    value, error = check_value(fields_by_name()[name], raw)
    assert value is None and error is not None and message in error


def test_empty_optional_fields_are_left_out_and_odd_schemas_give_no_fields():
    content, errors = collect(answer_fields(SCHEMA), {"name": "Ann", "age": "3", "color": "green", "agree": True})
    assert errors == {} and content == {"name": "Ann", "age": 3, "color": "green", "agree": True}
    tools = fields_by_name()["tools"]
    assert check_value(tools, []) == (UNSET, None)  # minItems applies only when the value is sent
    assert check_value(dataclasses.replace(tools, required=True), []) == (None, "choose at least one")
    assert answer_fields({}) == [] and answer_fields({"type": "object", "properties": []}) == []
    assert answer_fields(None) == []
