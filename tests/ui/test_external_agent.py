"""A workstream driven by an external ACP agent (`whimbrel acp` as a real subprocess, on the fake model).

Its text streams into the transcript, its tool call gets a card, its permission request opens Whimbrel's
approval modal, Esc cancels; it is stored and resumable; an agent that crashes or breaks the protocol
fails the turn with the reason, and the app goes on.
"""

from __future__ import annotations

import json
import sys

import pytest
from pathlib import Path

from app.settings.config import load_config
from app.tui.screens.approval import ApprovalScreen
from tests.acp.harness import priced_config
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import make_app, screen_is, screen_text, submit, wait_for
from widgets.tool_card import ToolCard

AGENT_WAIT = 150.0  # the agent is a second Python process: slow to start on a loaded machine
pytestmark = pytest.mark.timeout(600)


def config_with_agents(tmp_path: Path, base_url: str, **extra: str):
    """A config naming `self` (whimbrel acp on the fake model) and any extra agents given as TOML tables."""
    args = ["-m", "app.cli", "acp", "--model", "fake-model", "--base-url", base_url, "--api-key", "x"]
    text = f"[agents.self]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps(args)}\n"
    for name, table in extra.items():
        text += f"[agents.{name}]\n{table}\n"
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(path)


def write_call(path: str, content: str) -> ToolCallReply:
    return ToolCallReply([("write_file", json.dumps({"path": path, "content": content}), "w1")])


async def open_agent(pilot, app, name: str) -> None:
    await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
    before = len(app.manager)
    await submit(pilot, f"/agent {name}")
    await wait_for(pilot, lambda: len(app.manager) == before + 1, message="the agent's tab")


@pytest.mark.loop_held_known("the ACP client builds its pydantic schemas on the loop when it connects: 1.7 s")
async def test_the_agents_tool_call_asks_in_whimbrels_modal_and_the_workstream_resumes(fake_openai, tmp_path):
    fake_openai.queue(write_call("x.txt", "from the agent\n"), TextReply("Created x.txt for you."))
    config = config_with_agents(tmp_path, fake_openai.base_url)
    app = make_app(tmp_path, fake_openai.base_url, config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_agent(pilot, app, "self")
        agent_id = app.workstream.id
        await submit(pilot, "create x.txt")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), AGENT_WAIT, "the approval modal")
        assert "x.txt" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: "Created x.txt for you." in screen_text(app), AGENT_WAIT, "the agent's reply")
        await wait_for(pilot, lambda: app.workstream.state == "idle", AGENT_WAIT, "the turn's end")
        [card] = app.screen.query(ToolCard)
        assert card.status == "done"
    assert (tmp_path / "ws" / "x.txt").read_text() == "from the agent\n"

    fake_openai.queue(TextReply("I remember: x.txt."))
    again = make_app(tmp_path, fake_openai.base_url, config=config, resume=agent_id[:8])
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "Created x.txt for you." in screen_text(again), AGENT_WAIT, "history shown")
        await submit(pilot, "what did you make?")
        await wait_for(pilot, lambda: "I remember: x.txt." in screen_text(again), AGENT_WAIT, "the loaded session")
    sent = [m.get("content") for m in fake_openai.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["create x.txt", "what did you make?"]  # the agent loaded its earlier session


async def test_escape_cancels_the_agents_turn(fake_openai, tmp_path):
    fake_openai.queue(TextReply("slow " * 3000, chunk_size=5, delay=0.05))
    app = make_app(tmp_path, fake_openai.base_url, config=config_with_agents(tmp_path, fake_openai.base_url))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_agent(pilot, app, "self")
        await submit(pilot, "talk slowly")
        await wait_for(pilot, lambda: "slow slow" in screen_text(app), AGENT_WAIT, "the stream")
        await pilot.press("escape")
        await wait_for(pilot, lambda: "Turn cancelled." in screen_text(app), AGENT_WAIT, "the cancel")
        await wait_for(pilot, lambda: app.workstream.state == "idle", AGENT_WAIT, "idle again")


async def test_a_crashing_or_garbled_agent_fails_the_turn_with_the_reason(fake_openai, tmp_path, monkeypatch):
    crash = f'command = {json.dumps(sys.executable)}\nargs = ["-c", "import sys; print(\'boom\', file=sys.stderr); sys.exit(3)"]'
    garbled = (f'command = {json.dumps(sys.executable)}\n'
               'args = ["-c", "import sys, time; print(\'not json at all\', flush=True); time.sleep(60)"]')
    config = config_with_agents(tmp_path, fake_openai.base_url, crash=crash, garbled=garbled,
                                missing='command = "/nonexistent/agent-binary"')
    app = make_app(tmp_path, fake_openai.base_url, config=config)
    app_agent_wait = AGENT_WAIT
    async with app.run_test(size=(120, 40)) as pilot:
        await open_agent(pilot, app, "crash")
        await submit(pilot, "hello")
        # the notice and the state change are two events: wait for both
        await wait_for(pilot, lambda: "exited with code 3" in screen_text(app) and app.workstream.state == "error",
                       app_agent_wait, "the crash reason and the failed state")
        assert "boom" in screen_text(app)
        await open_agent(pilot, app, "missing")
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: "could not be started" in screen_text(app), app_agent_wait, "the start failure")
        await open_agent(pilot, app, "garbled")
        from app.acp import connection

        # the garbled agent never answers initialize: do not wait 30 s (restored after: a real agent needs them)
        monkeypatch.setattr(connection, "START_TIMEOUT", 3.0)
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: "did not answer initialize" in screen_text(app), app_agent_wait,
                       "the garbled agent's failure")
        await submit(pilot, "/agent nosuch")
        await wait_for(pilot, lambda: "no agent named 'nosuch'" in screen_text(app), 15, "unknown agent")


async def test_ctrl_n_offers_whimbrel_and_the_agents(fake_openai, tmp_path):
    from app.acp.client_session import ExternalAgentSession
    from app.tui.screens.new_workstream import NewWorkstreamScreen

    fake_openai.queue(TextReply("Hello from the agent."))
    app = make_app(tmp_path, fake_openai.base_url, config=config_with_agents(tmp_path, fake_openai.base_url))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen_is(app, NewWorkstreamScreen), message="the picker")
        await pilot.press("enter")  # Whimbrel's own model, highlighted first
        await wait_for(pilot, lambda: len(app.manager) == 2, message="a model tab")
        assert not isinstance(app.workstream.session, ExternalAgentSession)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen_is(app, NewWorkstreamScreen), message="the picker again")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: len(app.manager) == 3, message="the agent's tab")
        assert isinstance(app.workstream.session, ExternalAgentSession)
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "Hello from the agent." in screen_text(app), AGENT_WAIT, "the agent's reply")


async def test_the_agents_writes_and_commands_on_whimbrels_side_pass_whimbrels_modal(fake_openai, tmp_path):
    """`whimbrel acp --mode auto` asks nobody itself: its write and its command come to Whimbrel as
    fs/write_text_file and terminal/create, and Whimbrel's own gate (ask mode) puts each in the modal."""
    args = ["-m", "app.cli", "acp", "--mode", "auto", "--model", "fake-model", "--base-url", fake_openai.base_url,
            "--api-key", "x"]
    config = config_with_agents(tmp_path, fake_openai.base_url,
                                auto=f"command = {json.dumps(sys.executable)}\nargs = {json.dumps(args)}")
    fake_openai.queue(write_call("x.txt", "written through Whimbrel\n"),
                      ToolCallReply([("bash", json.dumps({"command": "cat x.txt; echo second"}), "b1")]),
                      ToolCallReply([("bash", json.dumps({"command": "echo ran in $PWD"}), "b2")]),
                      TextReply("All done."))
    app = make_app(tmp_path, fake_openai.base_url, config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_agent(pilot, app, "auto")
        await submit(pilot, "write, then run")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "x.txt" in screen_text(app),
                       AGENT_WAIT, "the write's approval")
        assert "agent auto" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "second" in screen_text(app),
                       AGENT_WAIT, "the first command's approval")
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "ran in" in screen_text(app),
                       AGENT_WAIT, "the second command's approval")
        await pilot.press("y")
        await wait_for(pilot, lambda: "All done." in screen_text(app), AGENT_WAIT, "the agent's reply")
    assert (tmp_path / "ws" / "x.txt").read_text() == "written through Whimbrel\n"
    results = {m["tool_call_id"]: m["content"] for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"}
    assert results["w1"].startswith("Created x.txt")
    assert "did not allow" in results["b1"] and "second" not in results["b1"].split("did not allow")[0]
    assert results["b2"] == f"ran in {tmp_path / 'ws'}\n[exit code 0]"


async def test_the_agents_usage_shows_in_the_status_bar_is_stored_and_counted_in_cost(fake_openai, tmp_path):
    """`whimbrel acp` on a priced model reports usage_update (gauge, cost) and the turn's tokens."""
    from app.tui.screens.cost import CostScreen
    from widgets.status_bar import StatusBar

    args = ["-m", "app.cli", "acp", "--config", str(priced_config(tmp_path, fake_openai.base_url)), "--model", "priced"]
    config = config_with_agents(tmp_path, fake_openai.base_url,
                                priced=f"command = {json.dumps(sys.executable)}\nargs = {json.dumps(args)}")
    fake_openai.queue(TextReply("Counted.", usage=(1000, 50)), TextReply("Again.", usage=(2000, 10)))
    app = make_app(tmp_path, fake_openai.base_url, config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_agent(pilot, app, "priced")
        agent_id = app.workstream.id
        status = app.screen.query_one(StatusBar)
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "$0.0024" in str(status.describe()), AGENT_WAIT, "the first turn's cost")
        assert "1.0k / 32.0k" in str(status.describe())  # the agent's context gauge
        await submit(pilot, "again")
        await wait_for(pilot, lambda: "$0.0065" in str(status.describe()), AGENT_WAIT, "both turns' cost")
        rows = await app.store.list_usage(app.workstream.id)
        assert [(r.model, r.prompt_tokens, r.completion_tokens) for r in rows] == [
            ("agent priced", 1000, 50), ("agent priced", 2000, 10)]
        assert [round(r.cost, 6) for r in rows] == [0.0024, 0.00408]
        await submit(pilot, "/cost")
        await wait_for(pilot, lambda: screen_is(app, CostScreen), message="the /cost screen")
        assert "$0.0065" in screen_text(app)

    fake_openai.queue(TextReply("Resumed.", usage=(500, 5)))
    again = make_app(tmp_path, fake_openai.base_url, config=config, resume=agent_id[:8])
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "Again." in screen_text(again), AGENT_WAIT, "the history")
        await submit(pilot, "once more")
        await wait_for(pilot, lambda: "Resumed." in screen_text(again) and again.workstream.state == "idle",
                       AGENT_WAIT, "the loaded session's turn")
        rows = await again.store.list_usage(agent_id)
    # the loaded agent session reports its whole cost; only this turn's part is new
    assert [round(r.cost, 6) for r in rows] == [0.0024, 0.00408, 0.00104]
