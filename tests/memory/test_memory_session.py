"""The acceptance path through a real Session: the real OpenAI SDK against the fake server, real
tools, a real SQLite file. The model saves a memory; a new workstream is given it; recall finds an
old discussion; AGENTS.md reaches the next workstream; compaction gives both again."""

from __future__ import annotations

import json
import time

from app.engine import events as ev
from app.engine.memory_context import attach_memory
from app.memory.service import MemoryService
from app.storage.async_store import AsyncStore
from tests.engine.harness import Recorder
from tests.engine.models_harness import close, openai_model, registry_for
from tools.context import ToolContext
from tools.registry import ToolRegistry
from tests.fake_llm.script import TextReply, ToolCallReply

from app.engine.session import Session


async def _session(models, store, service, workspace, config_dir, recorder):
    ws = await store.create_workstream(title="t", model="m", workdir=str(workspace))
    session = Session(workstream_id=ws, provider=None, models=models, registry=ToolRegistry.load_builtin(),
                      tool_context=ToolContext(workspace=workspace, bash_timeout=20), emit=recorder,
                      store=store, max_retries=1, retry_base_delay=0.0)
    attach_memory(session, service, config_dir)
    return session


def _backdate(engine, message_id: int, when: float) -> None:
    with engine.begin() as conn:
        conn.execute("UPDATE messages SET created_at = ? WHERE id = ?", (when, message_id))


def _system(request: dict) -> str:
    return request["messages"][0]["content"]


def _tool_results(request: dict) -> list[str]:
    """The tool results of a request in the order of their calls (c1, c2, …): calls run in
    parallel, so their results are stored in the order they finish."""
    results = [m for m in request["messages"] if m["role"] == "tool"]
    return [m["content"] for m in sorted(results, key=lambda m: m["tool_call_id"])]


async def test_remember_then_a_new_workstream_is_given_it(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    save = json.dumps({"action": "save", "name": "indent_with_tabs", "content": "This project uses tabs, not spaces.",
                       "description": "indentation style of the project", "type": "project"})
    fake_openai.queue(ToolCallReply(calls=[("memory", save, "c1")]), TextReply("I'll remember that."),
                      TextReply("Here is the function, indented with tabs."))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    service = MemoryService(store)
    first_rec, second_rec = Recorder(), Recorder()
    first = await _session(models, store, service, workspace, tmp_path / "config", first_rec)
    await first.run_turn("remember that this project uses tabs, not spaces")
    assert "Saved new memory indent_with_tabs [project, workspace]" in _tool_results(fake_openai.requests[1])[0]
    assert "◆ memory saved: indent_with_tabs (project, workspace)" in [n.text for n in first_rec.of(ev.Notice)]

    second = await _session(models, store, service, workspace, tmp_path / "config", second_rec)
    await second.run_turn("write a function that parses the config file")
    system = _system(fake_openai.requests[2])
    assert "# Memories" in system and "This project uses tabs, not spaces." in system
    assert "◆ memories given to this turn: indent_with_tabs" in [n.text for n in second_rec.of(ev.Notice)]
    [stored] = await service.list(None)
    assert stored.access_count == 1
    await close(models, store)


async def test_a_workstream_memory_stays_in_its_workstream(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    save = json.dumps({"action": "save", "name": "scratch_plan", "content": "Try the B-tree first.",
                       "scope": "workstream"})
    fake_openai.queue(ToolCallReply(calls=[("memory", save, "c1")]), TextReply("noted"), TextReply("other"),
                      ToolCallReply(calls=[("memory", '{"action": "list"}', "c2")]), TextReply("done"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    service = MemoryService(store)
    first = await _session(models, store, service, workspace, None, Recorder())
    await first.run_turn("note the plan for this workstream only")
    other = await _session(models, store, service, workspace, None, Recorder())
    await other.run_turn("what is the scratch plan?")
    assert "B-tree" not in _system(fake_openai.requests[2])
    await other.run_turn("list the memories")
    assert _tool_results(fake_openai.requests[4]) == ["No memories saved yet."]
    await close(models, store)


async def test_recall_finds_a_week_old_discussion(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    old = await store.create_workstream(title="retry design", model="m", workdir=str(workspace))
    from app.vocabulary.messages import Message

    message_id = await store.add_message(old, Message(role="assistant",
                                                      content="We settled on exponential backoff with jitter."))
    week_ago = time.time() - 7 * 86400
    await store.run(_backdate, store.store.engine, message_id, week_ago)
    fake_openai.queue(ToolCallReply(calls=[("recall", '{"query": "\\"backoff with jitter\\""}', "c1")]),
                      ToolCallReply(calls=[("recall", '{"query": "backoff AND (", "syntax": true}', "c2")]),
                      TextReply("Found it."))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    session = await _session(models, store, MemoryService(store), workspace, None, Recorder())
    await session.run_turn("what did we decide about retries last week?")
    found = _tool_results(fake_openai.requests[1])[0]
    day = time.strftime("%Y-%m-%d", time.localtime(week_ago))
    assert f"[{day}" in found and "retry design · assistant" in found and "«backoff with jitter»" in found
    error = _tool_results(fake_openai.requests[2])[1]
    assert "is not valid" in error and "Traceback" not in error
    await close(models, store)


async def test_agents_md_edits_reach_the_next_workstream_and_compaction_gives_it_again(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Run tests with make check.")
    fake_openai.queue(TextReply("one"), TextReply("two"), TextReply("three"), TextReply("summary of it"),
                      TextReply("after"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    service = MemoryService(store)
    first = await _session(models, store, service, workspace, None, Recorder())
    await first.run_turn("hello")
    assert "Run tests with make check." in _system(fake_openai.requests[0])
    (workspace / "AGENTS.md").write_text("Run tests with tox -e py312.")
    second = await _session(models, store, service, workspace, None, Recorder())
    await second.run_turn("hello again")
    assert "tox -e py312" in _system(fake_openai.requests[1]) and "make check" not in _system(fake_openai.requests[1])

    await first.run_turn("more")  # the first workstream keeps what it was told at its start ...
    assert "make check" in _system(fake_openai.requests[2])
    await service.save(second.memory_context.visibility, "ci_runner", "CI runs on GitHub Actions.", scope="global")
    assert await first.compact() == "summary of it"
    await first.run_turn("go on")  # ... until a compaction reads the instructions again
    system = _system(fake_openai.requests[4])
    assert "tox -e py312" in system and "CI runs on GitHub Actions." in system
    await close(models, store)


async def test_subdirectory_instructions_join_after_a_read(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    (workspace / "web").mkdir(parents=True)
    (workspace / "web" / "AGENTS.md").write_text("Web code uses 2-space JSX.")
    (workspace / "web" / "app.tsx").write_text("export {}\n")
    fake_openai.queue(ToolCallReply(calls=[("read_file", '{"path": "web/app.tsx"}', "c1")]), TextReply("read"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    recorder = Recorder()
    session = await _session(models, store, MemoryService(store), workspace, None, recorder)
    await session.run_turn("look at the web app")
    assert "2-space JSX" not in _system(fake_openai.requests[0])
    assert "2-space JSX" in _system(fake_openai.requests[1])
    assert any(n.text.startswith("Instructions added:") for n in recorder.of(ev.Notice))
    await close(models, store)


async def test_subdirectory_instructions_join_after_a_write_there(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    (workspace / "api").mkdir(parents=True)
    (workspace / "api" / "AGENTS.md").write_text("API handlers return typed errors.")
    write = json.dumps({"path": "api/handler.py", "content": "def handle():\n    pass\n"})
    fake_openai.queue(ToolCallReply(calls=[("write_file", write, "c1")]), TextReply("written"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    session = await _session(models, store, MemoryService(store), workspace, None, Recorder())
    await session.run_turn("add a handler")
    assert (workspace / "api" / "handler.py").exists()
    assert "typed errors" not in _system(fake_openai.requests[0])
    assert "typed errors" in _system(fake_openai.requests[1])
    await close(models, store)


async def test_the_skill_tool_lists_and_reads_skills(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    skills = workspace / ".whimbrel" / "skills"
    skills.mkdir(parents=True)
    (skills / "review.toml").write_text('description = "Review strictly"\nprompt = "Review {{focus}}."\n'
                                        '[settings]\ntemperature = 0.1\n')
    (skills / "broken.md").write_text("---\nno end")
    fake_openai.queue(ToolCallReply(calls=[("skill", '{"action": "list"}', "c1"),
                                           ("skill", '{"action": "read", "name": "review"}', "c2"),
                                           ("skill", '{"action": "read", "name": "nope"}', "c3")]),
                      TextReply("ok"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    session = await _session(models, store, MemoryService(store), workspace, None, Recorder())
    await session.run_turn("which skills are there?")
    listed, read, missing = _tool_results(fake_openai.requests[1])
    assert listed.startswith("- review: Review strictly") and "could not load" in listed and "never closed" in listed
    assert "variables: focus" in read and "temperature=0.1" in read and "Review {{focus}}." in read
    assert "no skill called 'nope'; known: review" in missing
    await close(models, store)


async def test_bad_memory_calls_get_words_not_tracebacks(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    big = json.dumps({"action": "save", "name": "huge", "content": "x" * (32 * 1024 + 1)})
    calls = [("memory", '{"action": "save", "content": "no name"}', "c1"),
             ("memory", '{"action": "save", "name": "Bad Name", "content": "x"}', "c2"),
             ("memory", big, "c3"),
             ("memory", '{"action": "delete", "name": "never_saved"}', "c4"),
             ("memory", '{"action": "save", "name": "ok_one", "content": "x", "type": "opinion"}', "c5"),
             ("memory", '{"action": "search", "query": "100%_\\\\"}', "c6"),
             ("recall", '{"query": "   "}', "c7")]
    fake_openai.queue(ToolCallReply(calls=calls), TextReply("ok"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    service = MemoryService(store)
    session = await _session(models, store, service, workspace, None, Recorder())
    await session.run_turn("try things")
    by_id = {m["tool_call_id"]: m["content"] for m in fake_openai.requests[1]["messages"] if m["role"] == "tool"}
    results = [by_id[f"c{n}"] for n in range(1, 8)]
    assert "needs `name`" in results[0]
    assert "snake_case" in results[1]
    assert "32 KB" in results[2]
    assert "no memory called 'never_saved'" in results[3]
    assert "opinion" in results[4]  # the schema's enum refuses it before the tool runs
    assert results[5] == "No memory matches '100%_\\\\'."
    assert "empty" in results[6]
    assert not any("Traceback" in r or "internal error" in r for r in results)
    assert await service.list(None) == []
    await close(models, store)


async def test_a_resumed_workstream_keeps_its_skill(fake_openai, tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    fake_openai.queue(TextReply("one"), TextReply("two"))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    service = MemoryService(store)
    first = await _session(models, store, service, workspace, None, Recorder())
    await first.memory_context.start_skill(first, {"name": "review", "version": "abc123def456", "path": "x",
                                                   "values": {}, "settings": {}, "prompt": "Review strictly."})
    await first.run_turn("start")
    assert "# Skill: review\nReview strictly." in _system(fake_openai.requests[0])
    resumed = Session(workstream_id=first.workstream_id, provider=None, models=models,
                      registry=ToolRegistry.load_builtin(), tool_context=ToolContext(workspace=workspace),
                      emit=Recorder(), store=store, messages=await store.load_messages(first.workstream_id))
    attach_memory(resumed, service)
    await resumed.run_turn("again")
    assert "# Skill: review\nReview strictly." in _system(fake_openai.requests[1])
    assert (await store.get_config(first.workstream_id))["skill"]["version"] == "abc123def456"
    await close(models, store)


async def test_recall_leaves_out_the_turn_that_asks(fake_openai, tmp_path):
    """The question itself matches its own words: it is left out; an earlier turn of the same
    workstream, and other workstreams, are found."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    old = await store.create_workstream(title="retry design", model="m", workdir=str(workspace))
    from app.vocabulary.messages import Message

    await store.add_message(old, Message(role="assistant", content="Decided: the retry backoff doubles each time."))
    models = registry_for({"local": openai_model(fake_openai, "local")})
    session = await _session(models, store, MemoryService(store), workspace, None, Recorder())
    fake_openai.queue(TextReply("Noted."))
    await session.run_turn("earlier: the retry backoff caps at a minute")
    fake_openai.queue(ToolCallReply(calls=[("recall", '{"query": "retry backoff"}', "c1")]), TextReply("Found."))
    await session.run_turn("what did we decide about the retry backoff?")
    found = _tool_results(fake_openai.requests[-1])[0]
    assert "what did we decide" not in found  # the asking turn is not a hit
    assert "2 messages found" in found and "doubles each time" in found and "caps at a minute" in found
    await close(models, store)
