"""Snapshots of a workstream driven by an external ACP agent (`whimbrel acp`, a real subprocess)."""

from __future__ import annotations

import pytest

from tests.snapshots.test_screens import SIZE, booted
from tests.ui.helpers import make_app, screen_is, submit, wait_for
from tests.ui.test_external_agent import AGENT_WAIT, config_with_agents, write_call
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.new_workstream import NewWorkstreamScreen


@pytest.mark.timeout(600)  # a second Python process (the agent) starts: slow on a loaded machine
def test_agent_workstream_with_a_tool_call_asking_permission(snap_compare, fake_openai, tmp_path):
    call = write_call("notes.txt", "from the agent\n")
    call.usage = (1200, 30)  # the agent reports it (usage_update): fixed, not estimated from paths that vary
    fake_openai.queue(call)

    async def run_before(pilot) -> None:
        await booted(pilot)
        app = pilot.app
        await submit(pilot, "/agent self")
        await wait_for(pilot, lambda: len(app.manager) == 2, message="the agent's tab")
        await booted(pilot)
        await submit(pilot, "write notes.txt")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), AGENT_WAIT, "the approval modal")
        await pilot.pause(0.3)

    app = make_app(tmp_path, fake_openai.base_url, config=config_with_agents(tmp_path, fake_openai.base_url))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_ctrl_n_offers_the_configured_agents(snap_compare, fake_openai, tmp_path):
    """The picker only lists the agents (none starts), so their commands are fixed words here."""
    from app.settings.config import load_config

    path = tmp_path / "config.toml"
    path.write_text('[agents.self]\ncommand = "whimbrel"\nargs = ["acp", "--model", "small"]\n'
                    '[agents.gemini]\ncommand = "gemini"\nargs = ["--acp"]\n')

    async def run_before(pilot) -> None:
        await booted(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: screen_is(pilot.app, NewWorkstreamScreen), message="the picker")
        await pilot.pause(0.2)

    app = make_app(tmp_path, fake_openai.base_url, config=load_config(path))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
