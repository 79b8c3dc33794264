"""Code mode's generated API: every built-in tool, deterministic text, and schemas it cannot express
degrading to Any (never an error, never a broken module)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tools.code_api_checks import imported, mypy_problems
from tools.code_api import build, py_type
from tools.registry import ToolRegistry, ToolSpec


async def _noop(_args, _ctx) -> str:
    return ""


def spec(name: str, parameters: dict, description: str = "A tool.") -> ToolSpec:
    schema = {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
    return ToolSpec(name=name, schema=schema, implementation=_noop)


def test_every_builtin_imports_and_type_checks(tmp_path):
    api = build(ToolRegistry.load_builtin()._specs.values())
    assert "run_code" not in api.bindings  # the transport is not part of its own API
    assert set(api.bindings) == set(ToolRegistry.load_builtin().names()) - {"run_code"}
    module = imported(api, tmp_path)
    assert "path: str" in api.text and "offset: int | None = None" in api.text
    assert module.Tools.read_file.__doc__.startswith("Read a text file")
    assert mypy_problems(api, tmp_path) == ""


def test_same_tools_in_any_order_give_the_same_bytes():
    specs = list(ToolRegistry.load_builtin()._specs.values())
    shuffled = specs[:]
    random.Random(7).shuffle(shuffled)
    assert build(specs).text == build(shuffled).text


def test_a_changed_tool_set_changes_the_text():
    specs = list(ToolRegistry.load_builtin()._specs.values())
    before = build(specs).text
    after = build([*specs, spec("mcp__wx__forecast", {"type": "object", "properties": {"city": {"type": "string"}}})]).text
    assert before != after and "class Server_wx:" in after and "    wx: Server_wx" in after


def test_constructs_it_cannot_express_become_any(tmp_path):
    odd = {"type": "object", "required": ["ref", "from", "a-b"], "properties": {
        "ref": {"$ref": "#/definitions/thing"},
        "all": {"allOf": [{"type": "string"}, {"minLength": 2}]},
        "not_": {"not": {"type": "string"}},
        "bad": {"type": "no-such-type"},
        "mixed": {"type": ["string", "integer", "null"]},
        "choice": {"enum": ["a", "b"]},
        "floats": {"enum": [1.5, 2.5]},
        "nested": {"type": "array", "items": {"type": "array", "items": {"type": "array", "items": {
            "type": "array", "items": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}}}}},
        "map": {"type": "object", "additionalProperties": {"type": "integer"}},
        "from": {"type": "string"}, "a-b": {"type": "integer"}, "self": {"type": "string"},
    }}
    api = build([spec("mcp__odd-server__do.it", odd, 'Ends a docstring """ early? \\ and \x00 control'),
                 spec("mcp__odd-server__1st", {"type": "object", "properties": "not a dict"}),
                 spec("class", {"type": "object"})])
    assert "ref: Any" in api.text and "all: Any | None" in api.text and "bad: Any | None" in api.text
    assert "mixed: str | int | None | None = None" in api.text and "choice: Literal['a', 'b'] | None" in api.text
    assert "floats: Any | None" in api.text and "map: dict[str, int] | None" in api.text
    assert "**arguments: Any" in api.text and "'a-b', 'from', 'self'" in api.text
    assert api.bindings["odd_server.do_it"] == "mcp__odd-server__do.it"
    assert api.bindings["odd_server._1st"] == "mcp__odd-server__1st" and api.bindings["class_"] == "class"
    imported(api, tmp_path)
    assert mypy_problems(api, tmp_path) == ""


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(schema=json_values, name=st.text(min_size=1, max_size=12), description=st.text(max_size=20))
def test_any_json_as_a_schema_gives_a_module_that_compiles(schema, name, description):
    py_type(schema)
    parameters = {"type": "object", "properties": {name: schema}, "required": [name]}
    api = build([spec("mcp__s__" + name, parameters, description), spec(name, schema if isinstance(schema, dict) else {})])
    compile(api.text, "<api>", "exec")
