"""The agent uses a real MCP server (mcp-server-time over stdio) configured in config.toml."""

from __future__ import annotations

import json
import re

from app.settings.config import load_config
from app.tui.app import WhimbrelApp
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.mcp_inspector import McpInspectorScreen
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.mcp.conftest import require, server_path
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for
from widgets.mcp_servers import ServerList


def app_with_servers(tmp_path, fake_openai, servers_toml: str) -> WhimbrelApp:
    config_path = tmp_path / "config.toml"
    config_path.write_text(servers_toml)
    return make_app(tmp_path, fake_openai.base_url, config=load_config(config_path))


async def test_agent_calls_a_real_mcp_tool_after_approval(fake_openai, tmp_path, monkeypatch):
    time_server = require("mcp-server-time")
    monkeypatch.setenv("PATH", server_path())
    toml = f'[mcp.servers.time]\ncommand = "{time_server}"\nargs = ["--local-timezone", "UTC"]\n' \
           '[mcp.servers.broken]\ncommand = "no-such-mcp-server-anywhere"\n'
    fake_openai.queue(ToolCallReply([("mcp__time__get_current_time", json.dumps({"timezone": "UTC"}), "t1")]),
                      TextReply("It is time."))
    app = app_with_servers(tmp_path, fake_openai, toml)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())  # ready while the servers still connect
        await wait_for(pilot, lambda: app.mcp.manager.status("time")[0] == "ready", timeout=60, message="time server")
        # a failed attempt is on record (between retries the status may read "connecting" again)
        await wait_for(pilot, lambda: app.mcp.manager.servers["broken"].breaker.failures >= 1, timeout=30,
                       message="the broken server failed")
        assert app.workstream.session.registry.get("mcp__time__get_current_time") is not None
        view = app.main_screen.view_for(app.focused_id)
        view.prompt.insert("what time is it in UTC?")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="MCP tools need approval")
        await pilot.press("y")
        await wait_for(pilot, lambda: "It is time." in screen_text(app), timeout=30)
        result = fake_openai.requests[1]["messages"][-1]
        assert result["role"] == "tool" and "UTC" in result["content"] and "datetime" in result["content"]
        tools = [t["function"]["name"] for t in fake_openai.requests[0]["tools"]]
        assert tools.index("mcp__time__get_current_time") > tools.index("bash")  # after the built-ins
        view.prompt.insert("/mcp status")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "time: ready" in screen_text(app), message="/mcp status lists the servers")
        # the broken server is not usable; it may be failed, retrying, or circuit-open by now
        assert re.search(r"broken: (failed|connecting|circuit-open)", screen_text(app))
        view.prompt.insert("/mcp")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_is(app, McpInspectorScreen), message="/mcp opens the inspector")
        listed = [str(option.prompt) for option in app.screen.query_one(ServerList).options]
        assert listed[0].startswith("● time  ready") and listed[1].startswith(("✖ broken", "◌ broken", "⊘ broken"))


async def test_a_failing_server_is_reported_once_per_outage(fake_openai, tmp_path):
    """Retries of a broken server do not pile up warnings: one toast until it is ready again."""
    app = app_with_servers(tmp_path, fake_openai, '[mcp.servers.broken]\ncommand = "no-such-mcp-server-anywhere"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await wait_for(pilot, lambda: app.mcp.manager.servers["broken"].breaker.failures >= 3, timeout=30,
                       message="three failed attempts")
        warnings = [n for n in app._notifications if "“broken” failed" in n.message]
        assert len(warnings) == 1 and "command not found" in warnings[0].message
