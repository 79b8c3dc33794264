"""`whimbrel acp` driven by the ACP SDK's client: sessions, streamed updates, permissions, cancel, load, modes."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.acp.harness import DEADLINE, RecordingClient, whimbrel_acp
from tests.fake_llm.script import TextReply, ToolCallReply


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def write_call(path: str, content: str) -> ToolCallReply:
    return ToolCallReply([("write_file", json.dumps({"path": path, "content": content}), "w1")])


async def prompt(conn, session_id: str, text: str):
    import acp

    return await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[acp.text_block(text)]), DEADLINE)


async def test_a_turn_with_a_tool_call_asks_the_client_and_streams_every_update(fake_openai, workspace, tmp_path):
    fake_openai.queue(write_call("x.txt", "made\n"), TextReply("Created x.txt.", reasoning="Writing it."))
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes.current_mode_id == "ask"
        assert {m.id for m in session.modes.available_modes} == {"ask", "accept-edits", "plan", "auto"}
        assert session.config_options[0].id == "model" and session.config_options[0].current_value
        response = await prompt(conn, session.session_id, "create x.txt")
    assert response.stop_reason == "end_turn"
    assert (workspace / "x.txt").read_text() == "made\n"
    [(tool_call, options)] = client.permission_requests
    assert tool_call.tool_call_id == "w1" and tool_call.kind == "edit" and "x.txt" in tool_call.title
    assert {o.kind for o in options} == {"allow_once", "allow_always", "reject_once"}
    [start] = client.of_kind("tool_call")
    assert start.tool_call_id == "w1" and start.raw_input == {"path": "x.txt", "content": "made\n"}
    assert client.of_kind("tool_call_update")[-1].status == "completed"
    assert client.text() == "Created x.txt." and client.text("agent_thought_chunk") == "Writing it."


async def test_a_rejected_permission_leaves_the_file_alone_and_tells_the_model(fake_openai, workspace, tmp_path):
    fake_openai.queue(write_call("x.txt", "no\n"), TextReply("Understood."))
    client = RecordingClient("reject")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert (await prompt(conn, session.session_id, "create x.txt")).stop_reason == "end_turn"
    assert not (workspace / "x.txt").exists()
    assert client.of_kind("tool_call_update")[-1].status == "failed"
    told = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert "denied" in told[0]["content"]


async def test_plan_mode_refuses_without_asking_and_auto_runs_without_asking(fake_openai, workspace, tmp_path):
    fake_openai.queue(write_call("x.txt", "plan\n"), TextReply("I would write x.txt."),
                      write_call("y.txt", "auto\n"), TextReply("Wrote y.txt."))
    client = RecordingClient("allow")
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        await prompt(conn, session.session_id, "create x.txt")
        await conn.set_session_mode(session_id=session.session_id, mode_id="auto")
        await prompt(conn, session.session_id, "create y.txt")
    assert not (workspace / "x.txt").exists() and (workspace / "y.txt").read_text() == "auto\n"
    assert client.permission_requests == []


async def test_cancel_stops_the_turn_and_load_replays_the_session_in_a_new_process(fake_openai, workspace, tmp_path):
    fake_openai.queue(TextReply("First answer."), TextReply("slow " * 2000, chunk_size=5, delay=0.05))
    client = RecordingClient()
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await prompt(conn, session.session_id, "first question")
        running = asyncio.ensure_future(prompt(conn, session.session_id, "a long one"))
        await client.until(lambda: "slow" in client.text(), "the slow reply to stream")
        await conn.cancel(session_id=session.session_id)
        assert (await asyncio.wait_for(running, DEADLINE)).stop_reason == "cancelled"
    later = RecordingClient()
    async with whimbrel_acp(later, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
        await later.until(lambda: "First answer." in later.text(), "the history replayed")
        assert later.text("user_message_chunk") == "first questiona long one"
        assert later.text().startswith("First answer.slow")  # the cancelled reply was kept, as far as it got


async def test_model_selection_and_bad_requests_are_answered_in_words(fake_openai, workspace, tmp_path):
    import acp

    client = RecordingClient()
    async with whimbrel_acp(client, workspace, fake_openai.base_url, tmp_path / "agent.log") as (conn, _proc):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        current = session.config_options[0].current_value
        changed = await conn.set_config_option(config_id="model", session_id=session.session_id, value=current)
        assert changed.config_options[0].current_value == current
        with pytest.raises(acp.RequestError):
            await conn.set_config_option(config_id="model", session_id=session.session_id, value="no-such-model")
        with pytest.raises(acp.RequestError):
            await conn.load_session(cwd=str(workspace), session_id="nosuchsession", mcp_servers=[])
        with pytest.raises(acp.RequestError):
            await conn.new_session(cwd="relative/dir", mcp_servers=[])
        assert (await prompt(conn, session.session_id, "still fine?")).stop_reason == "end_turn"
