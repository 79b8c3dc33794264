"""The MCP inspector against real servers: calls by hand, isError, resources, templates, prompts,
ping, reconnect after a crash, a failed server's reason, and adding/removing servers in config.toml."""

from __future__ import annotations

import json
import sys

import pytest

from app.settings.config import load_config
from app.mcp.config import ServerConfig
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.mcp_add_server import AddServerScreen
from app.tui.screens.mcp_inspector import McpInspectorScreen
from tests.mcp.conftest import HERE, needs_node, require, server_path
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for, wait_for_text
from tests.ui.inspector_helpers import (EVERYTHING, attach_manager, catalog, choose, demo_config, inspect,
                                        open_inspector, pick, result_text, run_and_wait, type_into, visible_text)
from widgets.mcp_servers import ServerList

TIME_ARGS = ["--local-timezone", "UTC"]


@pytest.fixture(autouse=True)
def _servers_on_path(monkeypatch):
    monkeypatch.setenv("PATH", server_path())


async def test_call_tools_by_hand_is_error_validation_ping_and_a_failed_server(tmp_path):
    require("mcp-server-time")
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        manager = attach_manager(app, ServerConfig("time", command="mcp-server-time", args=TIME_ARGS),
                                 ServerConfig("broken", command="no-such-mcp-server-anywhere"))
        screen = await open_inspector(pilot)
        await wait_for(pilot, lambda: manager.status("time")[0] == "ready", timeout=60, message="time server")
        await wait_for(pilot, lambda: "command not found: no-such-mcp-server-anywhere" in visible_text(screen),
                       timeout=30, message="the failed server's reason in the list")
        assert "✖ broken  failed" in visible_text(screen)

        await choose(pilot, screen, "time", "tools")
        tools = catalog(screen, "tools")
        form = await pick(pilot, tools, "convert_time")
        assert [f.name for f in form.fields] == ["source_timezone", "time", "target_timezone"]
        await type_into(pilot, form, "source_timezone", "UTC")
        await type_into(pilot, form, "time", "12:00")
        await type_into(pilot, form, "target_timezone", "Asia/Tokyo")
        await pilot.press("enter")  # Enter in a field calls the tool
        await wait_for(pilot, lambda: "21:00" in result_text(tools), timeout=30, message="the converted time")
        shown = result_text(tools)
        assert "isError: false" in shown and "structured content" in shown and '"time_difference": "+9.0h"' in shown

        form = await pick(pilot, tools, "get_current_time")
        calls_before = len(manager.servers["time"].logs.protocol)
        tools.submit()  # empty required field: refused before anything is sent
        await wait_for_text(pilot, "timezone is required")
        assert len(manager.servers["time"].logs.protocol) == calls_before
        await type_into(pilot, form, "timezone", "Not/AZone")
        shown = await run_and_wait(pilot, tools, "isError: true")
        assert "Invalid timezone" in shown

        await choose(pilot, screen, "time", "overview")
        await pilot.press("p")
        await wait_for(pilot, lambda: "ms round trip" in screen_text(app), message="ping result")
        assert "✔ ping time:" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, McpInspectorScreen), message="Esc closes")
        assert screen._listening is None and screen._changed not in manager._listeners


async def test_form_fields_resources_templates_and_prompts_on_an_sdk_server(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        _, screen = await inspect(pilot, demo_config(), "tools")
        tools = catalog(screen, "tools")
        form = await pick(pilot, tools, "search")
        assert [(f.name, f.kind, f.required) for f in form.fields] == [
            ("query", "string", True), ("limit", "integer", False), ("exact", "boolean", False),
            ("mode", "select", False), ("tags", "strings", False), ("filters", "json", False)]
        assert form.raw_values()["limit"] == "5" and form.raw_values()["mode"] == "fast"  # defaults filled
        await type_into(pilot, form, "query", "curlew")
        form.set_value("limit", "0")
        form.set_value("filters", "{not json")
        tools.submit()
        await wait_for_text(pilot, "filters is not valid JSON")
        form.set_value("filters", '{"year": 2024}')
        tools.submit()
        await wait_for_text(pilot, "limit 0 is less than the minimum of 1")
        form.set_value("limit", "7")
        form.set_value("mode", "deep")
        form.set_value("exact", True)
        form.set_value("tags", "birds, waders")
        await run_and_wait(pilot, tools, "isError: false")
        sent = json.loads(next(line for line in result_text(tools).splitlines() if line.startswith("{")))
        assert sent == {"query": "curlew", "limit": 7, "exact": True, "mode": "deep", "tags": ["birds", "waders"],
                        "filters": {"year": 2024}}
        await pick(pilot, tools, "broken")
        shown = await run_and_wait(pilot, tools, "isError: true")
        assert "the index is locked" in shown

        await choose(pilot, screen, "demo", "resources")
        resources = catalog(screen, "resources")
        await pick(pilot, resources, "r:notes://index")
        await run_and_wait(pilot, resources, "index: 2 notes")
        form = await pick(pilot, resources, "t:notes://{year}/{slug}")
        await type_into(pilot, form, "year", "2024")
        resources.submit()
        await wait_for_text(pilot, "slug is required")
        await type_into(pilot, form, "slug", "whimbrel")
        await run_and_wait(pilot, resources, "note at notes://2024/whimbrel")

        await choose(pilot, screen, "demo", "prompts")
        prompts = catalog(screen, "prompts")
        form = await pick(pilot, prompts, "summarize")
        await type_into(pilot, form, "topic", "curlews")
        shown = await run_and_wait(pilot, prompts, "Summarize curlews in a neutral tone.")
        assert "[user]" in shown and "A summary request" in shown


@needs_node
async def test_resources_templates_and_prompts_on_server_everything(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        _, screen = await inspect(pilot, EVERYTHING, "resources")
        resources = catalog(screen, "resources")
        await pick(pilot, resources, "r:demo://resource/static/document/architecture.md")
        await run_and_wait(pilot, resources, "text/markdown")
        form = await pick(pilot, resources, "t:demo://resource/dynamic/text/{resourceId}")
        await type_into(pilot, form, "resourceId", "3")
        await run_and_wait(pilot, resources, "Resource 3: This is a plaintext resource")
        form = await pick(pilot, resources, "t:demo://resource/dynamic/blob/{resourceId}")
        await type_into(pilot, form, "resourceId", "4")
        await run_and_wait(pilot, resources, "bytes]")  # a blob is described, not dumped
        await choose(pilot, screen, "everything", "prompts")
        prompts = catalog(screen, "prompts")
        form = await pick(pilot, prompts, "args-prompt")
        await type_into(pilot, form, "city", "Oslo")
        await run_and_wait(pilot, prompts, "What's weather in Oslo?")
        await choose(pilot, screen, "everything", "logs")
        await wait_for(pilot, lambda: "Starting default (STDIO) server" in screen_text(app), message="stderr shown")


async def test_reconnect_after_the_server_process_died(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        crashy = ServerConfig("crashy", command=sys.executable, args=[str(HERE / "crashy_server.py")])
        manager, screen = await inspect(pilot, crashy, "tools")
        tools = catalog(screen, "tools")
        await pick(pilot, tools, "crash")
        tools.submit()
        await wait_for(pilot, lambda: manager.status("crashy")[0] == "failed", timeout=30, message="crash noticed")
        await wait_for(pilot, lambda: "the server process exited" in visible_text(screen), message="reason shown")
        screen.query_one(ServerList).focus()
        await pilot.press("r")
        await wait_for(pilot, lambda: manager.status("crashy")[0] == "ready", timeout=60, message="reconnected")
        await wait_for(pilot, lambda: "● crashy  ready" in visible_text(screen), message="the list follows")
        await pick(pilot, tools, "ok")
        await run_and_wait(pilot, tools, "fine")


CONFIG = """\
# Whimbrel settings — keep this comment
[model]
default = "local"  # the model I use

[models.local]
model = "qwen"
"""


async def test_add_toggle_and_remove_a_server_in_config_toml(tmp_path):
    require("mcp-server-time")
    config_path = tmp_path / "config.toml"
    config_path.write_text(CONFIG)
    app = make_app(tmp_path)
    app.options.config_path = config_path
    async with app.run_test(size=(130, 45)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        assert app.mcp.manager is None  # nothing configured: the inspector still opens
        screen = await open_inspector(pilot)
        assert "No MCP servers are configured yet" in screen_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: screen_is(app, AddServerScreen), message="add-server form")
        await pilot.press(*"my__time")
        await pilot.press("enter")
        await wait_for_text(pilot, "contains '__'")  # the loader's rule, before anything is written
        assert config_path.read_text() == CONFIG
        app.screen.query_one("#add-name").value = "time"
        app.screen.query_one("#add-command").focus()
        await pilot.press(*"mcp-server-time --local-timezone UTC")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, message="back in the inspector")
        await wait_for(pilot, lambda: app.mcp.manager is not None and app.mcp.manager.status("time")[0] == "ready", timeout=60,
                       message="the added server connects")
        text = config_path.read_text()
        assert text.startswith(CONFIG) and "[mcp.servers.time]" in text
        assert load_config(config_path).mcp_servers["time"] == {"command": "mcp-server-time",
                                                                 "args": ["--local-timezone", "UTC"]}
        await wait_for(pilot, lambda: "● time  ready" in visible_text(screen), message="listed as ready")
        await wait_for(pilot, lambda: app.workstream.session.registry.get("mcp__time__get_current_time")
                       is not None, message="its tools reach the sessions")

        screen.query_one(ServerList).focus()
        await pilot.press("e")
        await wait_for(pilot, lambda: app.mcp.manager.status("time")[0] == "disabled", message="disabled")
        await wait_for(pilot, lambda: "enabled = false" in config_path.read_text(), message="saved")
        await pilot.press("e")
        await wait_for(pilot, lambda: app.mcp.manager.status("time")[0] == "ready", timeout=60, message="enabled again")
        assert "enabled" not in load_config(config_path).mcp_servers["time"]

        await pilot.press("delete")
        await wait_for(pilot, lambda: screen_is(app, ConfirmScreen), message="asks first")
        await pilot.press("y")
        await wait_for(pilot, lambda: "time" not in app.mcp.manager.servers, message="removed from the manager")
        await wait_for(pilot, lambda: "mcp.servers" not in config_path.read_text(), message="removed from the file")
        assert config_path.read_text() == CONFIG  # adding then removing leaves the file as it was
        assert "# the model I use" in config_path.read_text()
        await wait_for(pilot, lambda: "No MCP servers are configured yet" in screen_text(app), message="empty again")


async def test_cancel_a_hanging_call_and_esc_steps_back_from_the_form(tmp_path):
    from tests.mcp.servers import basic_server

    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        server = basic_server()
        manager, screen = await inspect(pilot, ServerConfig("basic", inprocess=server), "tools")
        tools = catalog(screen, "tools")
        await pick(pilot, tools, "hang")
        tools.submit()
        await wait_for(pilot, lambda: server.state["started"] == 1, message="the call reached the server")
        assert "Calling hang…" in result_text(tools) and str(tools.query_one("#tools-run").label) == "Cancel"
        tools.submit()  # the button now cancels
        await wait_for(pilot, lambda: "Cancelled" in result_text(tools), message="cancelled")
        assert str(tools.query_one("#tools-run").label) == "Call" and manager.status("basic")[0] == "ready"
        form = await pick(pilot, tools, "echo")
        await type_into(pilot, form, "text", "still here")
        await run_and_wait(pilot, tools, "still here")
        await pilot.press("escape")  # from the form back to the list, not out of the inspector
        assert app.screen is screen and app.focused is tools.option_list
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not screen, message="closed")
