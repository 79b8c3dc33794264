"""The turn loop end to end: real openai SDK → fake server over HTTP, real tools, real SQLite."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.engine import events as ev
from app.vocabulary.messages import repair_interrupted
from tests.e2e.processes import alive  # a zombie counts as ended: CI's PID 1 may never reap it
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import ErrorReply, SlowReply, TextReply, ToolCallReply


async def until(condition, what: str, timeout: float = 20.0) -> None:
    """Wait for `condition()` to hold, checking every 50 ms; fail naming `what` after `timeout` s."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"not within {timeout:g} s: {what}")
        await asyncio.sleep(0.05)


@pytest.fixture
def workspace(tmp_path):
    path = tmp_path / "ws"
    path.mkdir()
    return path


async def test_text_turn_streams_persists_and_reports_usage(fake_openai, workspace, tmp_path):
    fake_openai.queue(TextReply("Hello **there**, friend.", chunk_size=3, usage=(120, 7)))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("hi")
    assert recorder.text() == "Hello **there**, friend."
    assert len(recorder.of(ev.ContentDelta)) > 3  # streamed in pieces, not one blob
    usage = recorder.of(ev.UsageUpdated)[-1]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.context_window) == (120, 7, 8000)
    assert recorder.of(ev.TurnFinished)[-1].outcome == "done"
    stored = await store.load_messages(session.workstream_id)
    assert [(m.role, m.content) for m in stored] == [("user", "hi"), ("assistant", "Hello **there**, friend.")]
    await shutdown(session, store)


async def test_write_file_needs_approval_shows_diff_and_writes(fake_openai, workspace, tmp_path):
    args = json.dumps({"path": "hello.py", "content": "print('hi')\n"})
    fake_openai.queue(ToolCallReply([("write_file", args, "call_w1")], chunk_size=5), TextReply("Wrote hello.py."))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("create hello.py")
    [request] = recorder.approvals
    [item] = request.items
    assert item.name == "write_file" and "+print('hi')" in item.diff and "hello.py" in item.preview
    assert (workspace / "hello.py").read_text() == "print('hi')\n"
    assert recorder.text().endswith("Wrote hello.py.")
    statuses = [e.status for e in recorder.of(ev.ToolCallUpdated)]
    assert statuses == ["approved", "running", "done"]
    stored = await store.load_messages(session.workstream_id)
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[1].tool_calls[0].id == "call_w1" and stored[2].tool_call_id == "call_w1"
    # the second request carried the tool call and its result back to the model
    second = fake_openai.requests[1]["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "write_file"
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "call_w1"
    await shutdown(session, store)


async def test_deny_with_feedback_reaches_the_model_and_writes_nothing(fake_openai, workspace, tmp_path):
    args = json.dumps({"path": "x.txt", "content": "x"})
    fake_openai.queue(ToolCallReply([("write_file", args, "c1")]), TextReply("OK, I will not."))
    recorder = Recorder(lambda item: ev.ApprovalDecision("deny", feedback="use notes.md instead"))
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("write x")
    assert not (workspace / "x.txt").exists()
    tool_message = fake_openai.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "denied" in tool_message["content"]
    assert "use notes.md instead" in tool_message["content"]
    assert [e.status for e in recorder.of(ev.ToolCallUpdated)] == ["denied"]
    await shutdown(session, store)


async def test_always_saves_the_narrowest_rule_not_the_whole_tool(fake_openai, workspace, tmp_path):
    """"Always" on a write of a.txt allows writing a.txt again, but a write of b.txt still asks
    ("allow for this session" on one call used to allow every call of the tool)."""
    first = json.dumps({"path": "a.txt", "content": "a"})
    again = json.dumps({"path": "a.txt", "content": "a2"})
    other = json.dumps({"path": "b.txt", "content": "b"})
    fake_openai.queue(ToolCallReply([("write_file", first, "c1")]), ToolCallReply([("write_file", again, "c2")]),
                      ToolCallReply([("write_file", other, "c3")]), TextReply("done"))
    recorder = Recorder(lambda item: ev.ApprovalDecision("always"))
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("write files")
    assert (workspace / "a.txt").read_text() == "a2" and (workspace / "b.txt").read_text() == "b"
    assert [[i.call_id for i in r.items] for r in recorder.approvals] == [["c1"], ["c3"]]
    assert recorder.approvals[0].items[0].suggestions == ["write_file(a.txt)"]
    await shutdown(session, store)


async def test_outside_workspace_path_asks_even_for_auto_approved_tool(fake_openai, workspace, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "../secret.txt"}), "c1")]),
                      TextReply("I may not read it."))
    recorder = Recorder(lambda item: ev.ApprovalDecision("deny"))
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("read the secret")
    [request] = recorder.approvals
    assert "outside the workspace" in request.items[0].reason
    assert "top secret" not in fake_openai.requests[1]["messages"][-1]["content"]
    await shutdown(session, store)


async def test_sloppy_local_model_calls_are_tolerated(fake_openai, workspace, tmp_path):
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    # empty id, padded name, bare string instead of a JSON object → primary-key fallback
    fake_openai.queue(ToolCallReply([("  read_file ", "notes.txt", "")], omit_index=True), TextReply("Read it."))
    recorder = Recorder(decide=None)  # read_file must not ask
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("read notes")
    result = fake_openai.requests[1]["messages"][-1]
    assert result["role"] == "tool" and "alpha" in result["content"] and "beta" in result["content"]
    assert result["tool_call_id"].startswith("call_")
    assert recorder.approvals == []
    await shutdown(session, store)


async def test_invalid_arguments_go_back_to_the_model_as_clear_errors(fake_openai, workspace, tmp_path):
    fake_openai.queue(ToolCallReply([("write_file", '{"path": "a.txt", "content": ', "c1"),
                                     ("no_such_tool", "{}", "c2")]), TextReply("sorry"))
    recorder = Recorder(decide=None)
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("go")
    results = {m["tool_call_id"]: m["content"] for m in fake_openai.requests[1]["messages"] if m["role"] == "tool"}
    assert "JSON" in results["c1"] or "content" in results["c1"]
    assert "no_such_tool" in results["c2"] and "read_file" in results["c2"]
    assert not (workspace / "a.txt").exists()
    assert {e.status for e in recorder.of(ev.ToolCallUpdated)} == {"error"}
    await shutdown(session, store)


async def test_retries_server_errors_with_notices(fake_openai, workspace, tmp_path):
    fake_openai.queue(ErrorReply(500, "boom"), ErrorReply(429, "slow down", headers={"Retry-After": "0"}),
                      TextReply("finally"))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("hi")
    notices = [n.text for n in recorder.of(ev.Notice)]
    assert len(notices) == 2 and all("retrying" in n.lower() for n in notices)
    assert recorder.text() == "finally"
    await shutdown(session, store)


async def test_auth_failure_is_an_error_notice_not_a_crash(fake_openai, workspace, tmp_path):
    fake_openai.api_key = "right-key"
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("hi")
    [notice] = recorder.of(ev.Notice)
    assert notice.level == "error" and "401" in notice.text
    assert recorder.of(ev.TurnFinished)[-1].outcome == "error"
    assert recorder.of(ev.StateChanged)[-1].state == "error"
    await shutdown(session, store)


@pytest.mark.parametrize("reason,word", [("length", "token limit"), ("content_filter", "content filter")])
async def test_finish_reason_warnings(fake_openai, workspace, tmp_path, reason, word):
    fake_openai.queue(TextReply("partial answ", finish_reason=reason))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("hi")
    warnings = [n for n in recorder.of(ev.Notice) if n.level == "warning"]
    assert len(warnings) == 1 and word in warnings[0].text
    await shutdown(session, store)


async def test_cancel_mid_stream_keeps_partial_content(fake_openai, workspace, tmp_path):
    fake_openai.queue(SlowReply("one two three four five six seven eight nine ten " * 3, delay=0.05))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    task = asyncio.create_task(session.run_turn("count"))
    while len(recorder.text()) < 10:
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    partial = recorder.text()
    stored = await store.load_messages(session.workstream_id)
    assert stored[-1].role == "assistant" and stored[-1].interrupted
    assert stored[-1].content == partial and 10 <= len(partial) < 150
    assert recorder.of(ev.TurnFinished)[-1].outcome == "cancelled"
    await shutdown(session, store)


async def test_cancel_kills_running_bash_and_records_it(fake_openai, workspace, tmp_path):
    command = "echo started; sleep 30 & echo $! > child.pid; wait"
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": command}), "b1")]))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    task = asyncio.create_task(session.run_turn("run it"))
    await until(lambda: (workspace / "child.pid").exists() and recorder.of(ev.ToolOutput), "the command started")
    pid = int((workspace / "child.pid").read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: not alive(pid), "the background sleep ended with the cancel")
    stored = await store.load_messages(session.workstream_id)
    assert stored[-1].role == "tool" and "cancelled" in stored[-1].content
    assert "started" in "".join(e.text for e in recorder.of(ev.ToolOutput))
    await shutdown(session, store)


async def test_a_cancelled_bash_call_gives_the_model_its_output_so_far(fake_openai, workspace, tmp_path):
    """The stored result says it was cancelled and carries what the command printed, even a last
    line without its newline; the card gets the same text."""
    command = "echo first line; printf 'no newline yet'; sleep 30"
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": command}), "b1")]))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    task = asyncio.create_task(session.run_turn("run it"))
    await until(lambda: recorder.of(ev.ToolOutput), "the command printed")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stored = await store.load_messages(session.workstream_id)
    assert stored[-1].role == "tool" and stored[-1].is_error
    assert stored[-1].content == ("The user cancelled this call before it finished. Its output until then:\n"
                                  "first line\nno newline yet")
    assert recorder.of(ev.ToolResultReady)[-1].output == stored[-1].content
    await shutdown(session, store)


async def test_resume_strips_an_interrupted_tool_turn(fake_openai, workspace, tmp_path):
    """A crash after the assistant asked for a tool but before its result: the model never sees the dangling call."""
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "echo hi"}), "b1")]))
    recorder = Recorder(decide=None)  # never answers: simulates the crash point
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    task = asyncio.create_task(session.run_turn("say hi"))
    await recorder.approval_seen.wait()
    workstream_id = session.workstream_id
    task.cancel()  # the cancel path records results; drop them to mimic a SIGKILL before any result
    await asyncio.gather(task, return_exceptions=True)
    await shutdown(session, store)
    from app.storage.store import Store

    raw = Store(tmp_path / "whimbrel.db")
    with raw.engine.begin() as conn:
        conn.execute("DELETE FROM messages WHERE role = 'tool_result'")
    raw.close()

    fake_openai.queue(TextReply("Continuing."))
    recorder2 = Recorder()
    session2, store2 = await make_session(fake_openai, workspace, tmp_path, recorder2, workstream_id=workstream_id,
                                          messages=None)
    session2.messages = await store2.load_messages(workstream_id)
    assert any(m.tool_calls for m in session2.messages)  # still in history for the transcript
    await session2.run_turn("go on")
    sent = fake_openai.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]
    assert recorder2.text() == "Continuing."
    assert repair_interrupted(session2.messages)[-1].role == "assistant"
    await shutdown(session2, store2)
