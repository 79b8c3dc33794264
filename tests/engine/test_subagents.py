"""task and plan sub-agents through the real turn loop: parallel runs, scoping, approvals marked with
the sub-agent's name, cancel, budget, storage, and the plan review."""

from __future__ import annotations

import asyncio
import json

from app.engine import events as ev
from app.storage import subagent_store
from tests.engine.harness import Recorder, make_session, shutdown
from tests.engine.test_session import until
from tests.fake_llm.script import SlowReply, TextReply, ToolCallReply
from tools.visibility import ToolScope


def task_call(call_id: str, prompt: str, **extra) -> tuple[str, str, str]:
    return ("task", json.dumps({"prompt": prompt, **extra}), call_id)


def workspace_of(tmp_path):
    path = tmp_path / "ws"
    path.mkdir(exist_ok=True)
    return path


def inner(recorder: Recorder, kind: type) -> list[ev.SubagentEvent]:
    return [e for e in recorder.of(ev.SubagentEvent) if isinstance(e.event, kind)]


async def test_two_tasks_from_one_reply_run_at_once_and_are_stored(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([task_call("call_a", "investigate A"), task_call("call_b", "investigate B")]),
                      SlowReply("finding one", delay=0.05, chunk_size=3), SlowReply("finding two", delay=0.05, chunk_size=3),
                      TextReply("Both done."))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace_of(tmp_path), tmp_path, recorder)
    await session.run_turn("two independent investigations please")
    results = {e.call_id: e.output for e in recorder.of(ev.ToolResultReady)}
    assert sorted(results.values()) == ["[task-1] finding one", "[task-2] finding two"] or \
        sorted(results.values()) == ["[task-1] finding two", "[task-2] finding one"]
    starts = [i for i, e in enumerate(recorder.events) if isinstance(e, ev.SubagentEvent)
              and isinstance(e.event, ev.AssistantStarted)]
    ends = [i for i, e in enumerate(recorder.events) if isinstance(e, ev.SubagentEvent)
            and isinstance(e.event, ev.AssistantFinished)]
    assert len(starts) == 2 and max(starts) < min(ends)  # both were streaming at the same time
    assert {e.call_id for e in recorder.of(ev.SubagentEvent)} == {"call_a", "call_b"}
    runs = await store.run(subagent_store.list_runs, store.store, session.workstream_id)
    assert sorted((r["name"], r["status"]) for r in runs) == [("task-1", "done"), ("task-2", "done")]
    messages = await store.run(subagent_store.run_messages, store.store, runs[0]["id"])
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert recorder.of(ev.TurnFinished)[-1].outcome == "done"
    await shutdown(session, store)


async def test_a_sub_agent_asking_for_a_tool_its_parent_lacks_is_refused(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([task_call("call_t", "do it", tools=["bash"])]), TextReply("ok"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace_of(tmp_path), tmp_path, recorder)
    session.tool_scope = ToolScope(allowed=frozenset({"read_file", "task"}), extra=session.tool_scope.extra)
    await session.run_turn("go")
    result = recorder.of(ev.ToolResultReady)[0]
    assert result.is_error and "refused: the sub-agent asked for bash" in result.output
    assert len(fake_openai.requests) == 2  # no sub-agent request was made
    await shutdown(session, store)


async def test_a_sub_agents_tools_never_exceed_its_parents(fake_openai, tmp_path):
    workspace = workspace_of(tmp_path)
    write = json.dumps({"path": "pwned.txt", "content": "x"})
    fake_openai.queue(ToolCallReply([task_call("call_t", "write a file")]),
                      ToolCallReply([("write_file", write, "call_w")]), TextReply("could not write"), TextReply("ok"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    session.tool_scope = ToolScope(allowed=frozenset({"read_file", "search", "task"}), extra=session.tool_scope.extra)
    await session.run_turn("go")
    child_tools = [t["function"]["name"] for t in fake_openai.requests[1]["tools"]]
    assert child_tools == ["read_file", "search"]  # no task inside a task, nothing the parent lacks
    refused = [e.event for e in inner(recorder, ev.ToolResultReady)]
    assert refused[0].is_error and "Unknown tool 'write_file'" in refused[0].output
    assert not (workspace / "pwned.txt").exists()
    await shutdown(session, store)


async def test_a_sub_agents_approvals_are_marked_with_its_name(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([task_call("call_t", "list files")]),
                      ToolCallReply([("bash", json.dumps({"command": "echo hi-from-task"}), "call_b")]),
                      TextReply("it printed hi"), TextReply("done"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace_of(tmp_path), tmp_path, recorder)
    await session.run_turn("go")
    names = [item.name for request in recorder.approvals for item in request.items]
    assert names == ["task", "task-1 · bash"]
    output = [e.event.output for e in inner(recorder, ev.ToolResultReady)]
    assert "hi-from-task" in output[0]
    assert recorder.of(ev.ToolResultReady)[-1].output == "[task-1] it printed hi"
    await shutdown(session, store)


async def test_cancelling_the_parent_cancels_its_sub_agent(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([task_call("call_t", "a long job")]), SlowReply("x" * 400, delay=0.05))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace_of(tmp_path), tmp_path, recorder)
    turn = asyncio.ensure_future(session.run_turn("go"))
    await until(lambda: inner(recorder, ev.ContentDelta), "the sub-agent streams")
    turn.cancel()
    try:
        await turn
    except asyncio.CancelledError:
        pass
    runs = await store.run(subagent_store.list_runs, store.store, session.workstream_id)
    assert [r["status"] for r in runs] == ["cancelled"]
    assert [e.event.outcome for e in inner(recorder, ev.TurnFinished)] == ["cancelled"]
    assert recorder.of(ev.TurnFinished)[-1].outcome == "cancelled"
    await shutdown(session, store)


async def test_a_sub_agent_stops_at_its_token_budget_and_its_usage_counts(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([task_call("call_t", "dig")], usage=(100, 10)),
                      ToolCallReply([("search", json.dumps({"pattern": "x"}), "c1")], text="partial finding",
                                    usage=(5000, 50)),
                      TextReply("ok", usage=(200, 5)))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace_of(tmp_path), tmp_path, recorder)
    session.subagents.token_budget = 1000
    await session.run_turn("go")
    result = recorder.of(ev.ToolResultReady)[-1]
    assert "stopped at its token budget (1,000 tokens)" in result.output and "partial finding" in result.output
    usage = await store.list_usage(session.workstream_id)
    assert sum(u.prompt_tokens for u in usage) == 100 + 5000 + 200  # the sub-agent's request is counted
    assert len(fake_openai.requests) == 3  # the sub-agent made no request past its budget
    await shutdown(session, store)


async def test_plan_explores_read_only_writes_the_plan_and_waits_for_review(fake_openai, tmp_path):
    workspace = workspace_of(tmp_path)
    fake_openai.queue(ToolCallReply([("plan", json.dumps({"prompt": "add a CLI flag"}), "call_p")]),
                      TextReply("1. Edit app/cli.py\n2. Add a test"), TextReply("Going ahead."))
    decisions = {"task": ev.ApprovalDecision("approve")}

    def decide(item: ev.ApprovalItem) -> ev.ApprovalDecision:
        return ev.ApprovalDecision("deny", "use argparse groups") if item.name.endswith("plan review") \
            else ev.ApprovalDecision("approve")

    recorder = Recorder(decide)
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("plan it")
    plan_tools = [t["function"]["name"] for t in fake_openai.requests[1]["tools"]]
    assert plan_tools == ["man", "math", "notify", "read_file", "search", "web_fetch"]  # no search backend here
    saved = workspace / ".whimbrel" / "plans" / f"{session.workstream_id}.md"
    assert saved.read_text() == "1. Edit app/cli.py\n2. Add a test\n"
    review = recorder.approvals[-1].items[0]
    assert review.name == "plan-1 · plan review" and "1. Edit app/cli.py" in review.preview
    result = recorder.of(ev.ToolResultReady)[-1].output
    assert result.startswith("The user rejected the plan") and "use argparse groups" in result
    assert decisions  # (kept for readability of the decider above)
    await shutdown(session, store)


async def test_an_accepted_plan_goes_back_to_the_model(fake_openai, tmp_path):
    workspace = workspace_of(tmp_path)
    fake_openai.queue(ToolCallReply([("plan", json.dumps({"prompt": "x"}), "call_p")]),
                      TextReply("1. Step one"), TextReply("ok"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("plan it")
    result = recorder.of(ev.ToolResultReady)[-1].output
    assert result.startswith("The user accepted the plan, saved in .whimbrel/plans/") and "1. Step one" in result
    await shutdown(session, store)
