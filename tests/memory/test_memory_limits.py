"""[memory] in config.toml sets the limits of memories, recall and instruction files: each reaches
what the model is given and what it may save; bad values are refused naming the line and key."""

from __future__ import annotations

import json

import pytest

from app.settings.config import ConfigError, load_config
from app.memory.limits import MemoryLimits
from app.memory.records import Visibility
from app.memory.service import MemoryService
from app.storage.async_store import AsyncStore
from tests.engine.harness import Recorder
from tests.engine.models_harness import close, openai_model, registry_for
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.memory.test_memory_session import _session, _system

TIGHT = """\
[memory]
content_kb = 1         # a memory holds 1 KB
per_turn = 1           # one memory per turn
chars_per_memory = 100
results = 2
instruction_kb = 1
import_depth = 0       # @imports are not followed
"""


def test_the_defaults_are_the_issues_and_the_config_sets_each(tmp_path):
    assert MemoryLimits.from_config(None) == MemoryLimits(32 * 1024, 5, 1500, 20, 64 * 1024, 5)
    assert MemoryLimits.from_config(load_config(tmp_path / "missing.toml")) == MemoryLimits()
    (tmp_path / "config.toml").write_text(TIGHT)
    assert MemoryLimits.from_config(load_config(tmp_path / "config.toml")) == MemoryLimits(1024, 1, 100, 2, 1024, 0)


@pytest.mark.parametrize("line, words", [("per_turn = -1", "per_turn"), ('content_kb = "big"', "content_kb"),
                                         ("chars_per_memory = 5", "chars_per_memory"), ("results = 0", "results")])
def test_bad_limits_are_refused_with_line_and_key(tmp_path, line, words):
    (tmp_path / "config.toml").write_text(f"[memory]\n{line}\n")
    with pytest.raises(ConfigError, match=f"line 2.*{words}"):
        load_config(tmp_path / "config.toml")


async def test_the_limits_reach_the_model_and_the_tools(fake_openai, tmp_path):
    (tmp_path / "config.toml").write_text(TIGHT)
    limits = MemoryLimits.from_config(load_config(tmp_path / "config.toml"))
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "extra.md").write_text("IMPORTED TEXT")
    (workspace / "AGENTS.md").write_text("@extra.md\n" + "rule " * 400 + "END OF AGENTS")
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    service = MemoryService(store, limits=limits)
    here = Visibility(workstream_id="elsewhere", workspace=str(workspace.resolve()))
    for name in ("tabs_not_spaces", "tests_with_pytest", "commit_style"):
        await service.save(here, name, f"{name}: " + "detail " * 50, description=name.replace("_", " "))
    big = json.dumps({"action": "save", "name": "huge", "content": "x" * 1025})
    fake_openai.queue(ToolCallReply(calls=[("memory", big, "c1"), ("memory", '{"action": "list"}', "c2")]),
                      TextReply("ok"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    session = await _session(models, store, service, workspace, None, Recorder())
    await session.run_turn("tabs or spaces?")
    system = _system(fake_openai.requests[0])
    assert "## tabs_not_spaces" in system  # one memory, the relevant one
    assert "## tests_with_pytest" not in system and "## commit_style" not in system
    assert "more characters: memory search by its name shows all" in system  # cut to 100 characters
    assert "IMPORTED TEXT" not in system and "END OF AGENTS" not in system  # depth 0; cut to 1 KB
    results = {m["tool_call_id"]: m["content"] for m in fake_openai.requests[1]["messages"] if m["role"] == "tool"}
    assert "the limit is 1,024 bytes (1 KB)" in results["c1"]
    assert results["c2"].startswith("2 memories:")
    await close(models, store)
