"""A sub-agent inherits its parent's restrictions (rules, mode, later mode changes) and can only narrow
them: an "always" given inside it stays its own. Its calls write audit rows naming it, in the parent's
workstream, so the audit log can be filtered by either. Real Session, real SDK to the fake server, real
SQLite, rules from a real config file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine import events as ev
from app.permissions import audit
from tests.engine.harness import Recorder
from tests.engine.test_permission_flow import App, audit_rows
from tests.fake_llm.script import TextReply, ToolCallReply


@pytest.fixture
def place(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("hello\n")
    (ws / "build").mkdir()
    config = tmp_path / "config.toml"
    config.write_text('[policy]\ndeny = ["bash(rm *)"]\nallow = ["task"]\n')
    return ws, config, tmp_path / "data"


def task(call_id: str, prompt: str) -> ToolCallReply:
    return ToolCallReply([("task", json.dumps({"prompt": prompt}), call_id)])


def calls(*items: tuple[str, dict, str]) -> ToolCallReply:
    return ToolCallReply([(name, json.dumps(args), call_id) for name, args, call_id in items])


async def test_a_sub_agent_is_bound_by_its_parents_rules_and_its_calls_are_audited(fake_openai, place):
    ws, config, data = place
    fake_openai.queue(task("t1", "tidy up"),
                      calls(("bash", {"command": "rm -rf build"}, "c1"), ("read_file", {"path": "notes.md"}, "c2")),
                      TextReply("could not delete"), TextReply("done"))
    app = App(fake_openai, ws, config, data)
    recorder = Recorder(lambda item: ev.ApprovalDecision("approve"))
    session = await app.start(recorder)
    await session.run_turn("tidy")
    await app.stop()
    assert (ws / "build").is_dir() and not recorder.approvals  # refused by the parent's rule, nobody asked
    rows = {r.call_id: r for r in audit_rows(data)}
    assert (rows["t1"].agent, rows["t1"].decision) == (None, "allowed")
    assert rows["c1"].agent == "task-1" and rows["c1"].workstream_id == session.workstream_id
    assert rows["c1"].decision == "refused" and rows["c1"].decided_by.startswith("rule deny bash(rm *) (user, ")
    assert (rows["c2"].agent, rows["c2"].decision, rows["c2"].status) == ("task-1", "allowed", "done")
    from app.storage.store import Store

    store = Store(data / "whimbrel.db")
    try:  # the audit screen's workstream filter: the sub-agent's name, or the parent's id
        assert [r.call_id for r in audit.query(store.engine, workstream="task-1")] == ["c1", "c2"]
        assert {r.call_id for r in audit.query(store.engine, workstream=session.workstream_id[:8])} == \
            {"t1", "c1", "c2"}
    finally:
        store.close()


async def test_a_sub_agent_follows_its_parents_plan_mode(fake_openai, place):
    ws, config, data = place
    fake_openai.queue(task("t1", "write the notes"), calls(("write_file", {"path": "plan.md", "content": "x"}, "w1")),
                      TextReply("plan mode refused it"), TextReply("done"))
    app = App(fake_openai, ws, config, data)
    session = await app.start(Recorder(lambda item: ev.ApprovalDecision("approve")))
    session.guard.gate.mode = "plan"  # Shift+Tab on the parent
    await session.run_turn("write")
    await app.stop()
    assert not (ws / "plan.md").exists()
    row = {r.call_id: r for r in audit_rows(data)}["w1"]
    assert (row.agent, row.decision, row.mode) == ("task-1", "refused", "plan")
    assert "plan mode is read-only" in row.decided_by


async def test_always_inside_a_sub_agent_never_widens_its_parent(fake_openai, place):
    ws, config, data = place
    write = ("write_file", {"path": "a.txt", "content": "x\n"})
    fake_openai.queue(task("t1", "write a.txt"), calls((*write, "w1")), calls((*write, "w2")), TextReply("wrote it"),
                      calls((*write, "w3")), TextReply("done"))

    def decide(item: ev.ApprovalItem) -> ev.ApprovalDecision:
        if item.name.startswith("task-1"):
            return ev.ApprovalDecision("always", rules=["write_file(a.txt)"], scope="workstream")
        return ev.ApprovalDecision("deny")

    recorder = Recorder(decide)
    app = App(fake_openai, ws, config, data)
    session = await app.start(recorder)
    await session.run_turn("go")
    await app.stop()
    asked = [item.call_id for request in recorder.approvals for item in request.items]
    assert asked == ["w1", "w3"]  # w2 ran on the sub-agent's own rule; the parent still asks about w3
    rows = {r.call_id: r for r in audit_rows(data)}
    assert rows["w1"].decided_by.startswith("user: always (write_file(a.txt) saved to this sub-agent (task-1) only")
    assert rows["w2"].decided_by.startswith("rule allow write_file(a.txt) (workstream, sub-agent task-1)")
    assert (rows["w3"].agent, rows["w3"].decision) == (None, "denied")
    assert session.guard.workstream_rules == [] and not any(r.spec == "write_file(a.txt)"
                                                            for r in session.guard.gate.policy.rules)
    assert not (await app_store_rules(data, session.workstream_id))


async def app_store_rules(data: Path, workstream_id: str) -> list:
    """The workstream rules kept with the parent's conversation."""
    from app.storage.async_store import AsyncStore

    store = await AsyncStore.open(data / "whimbrel.db")
    try:
        return (await store.get_config(workstream_id)).get("policy_rules", [])
    finally:
        await store.aclose()
