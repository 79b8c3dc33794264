"""Snapshots of the MCP inspector (baselines in snapshots/test_mcp_inspector_screens/): the server list
with a failed server, a tool's generated form, a result view, and the protocol log."""

from __future__ import annotations

import time

import pytest
from textual.widgets import DataTable, TabbedContent

from app.mcp.config import ServerConfig
from tests.mcp.conftest import require, server_path
from tests.snapshots.test_screens import booted
from tests.ui.helpers import make_app, wait_for
from tests.ui.inspector_helpers import attach_manager, demo_config, fixed_clock, open_inspector
from widgets.mcp_catalog import CatalogPane

SIZE = (120, 36)
TIME = ServerConfig("time", command="mcp-server-time", args=["--local-timezone", "UTC"])


@pytest.fixture(autouse=True)
def _servers_on_path_and_utc(monkeypatch):
    """Spawned servers come from the venv; log times print in UTC whatever the machine's zone."""
    monkeypatch.setenv("PATH", server_path())
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def settle(pilot) -> None:
    """Drop transient toasts (a failed server announces itself) and let the layout settle."""
    pilot.app.clear_notifications()
    await pilot.pause(0.3)


def test_inspector_server_list_with_a_failed_server(snap_compare, tmp_path):
    require("mcp-server-time")
    app = make_app(tmp_path)

    async def run_before(pilot) -> None:
        await booted(pilot)
        manager = attach_manager(app, TIME, ServerConfig("broken", command="no-such-mcp-server"))
        await manager.wait_settled(timeout=60)
        await wait_for(pilot, lambda: manager.status("time")[0] == "ready", timeout=60, message="time server")
        await open_inspector(pilot)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def _demo_tools(pilot, tool: str) -> CatalogPane:
    await booted(pilot)
    manager = attach_manager(pilot.app, demo_config())
    await manager.wait_ready("demo", 15)
    screen = await open_inspector(pilot, clock=fixed_clock())
    screen.query_one(TabbedContent).active = "tab-tools"
    await pilot.pause()
    pane = screen.query_one("#mcp-tools", CatalogPane)
    pane.option_list.highlighted = pane.option_list.get_option_index(tool)
    await wait_for(pilot, lambda: pane.current == tool and pane.form is not None, message=f"{tool} form")
    await pilot.pause()
    return pane


def test_inspector_tool_form_with_a_validation_message(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        pane = await _demo_tools(pilot, "search")
        pane.form.set_value("query", "curlew")
        pane.form.set_value("limit", "0")
        pane.form.set_value("tags", "birds, waders")
        pane.submit()  # refused: limit is below its minimum
        await settle(pilot)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_inspector_result_view(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        pane = await _demo_tools(pilot, "report")
        pane.submit()
        await wait_for(pilot, lambda: (pane.server, "report") in pane.results, message="the result")
        await settle(pilot)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_inspector_protocol_log(snap_compare, tmp_path):
    require("mcp-server-time")
    app = make_app(tmp_path)

    async def run_before(pilot) -> None:
        await booted(pilot)
        manager = attach_manager(app, TIME)
        state = await manager.wait_ready("time", 60)
        for index, entry in enumerate(state.logs.protocol):  # mask the clock: fixed times and timings
            entry.at = 1767225600.0 + index * 0.125
            entry.elapsed_ms = 2.5 * index if entry.elapsed_ms is not None else None
        screen = await open_inspector(pilot)
        screen.query_one(TabbedContent).active = "tab-protocol"
        table = screen.query_one("#protocol-table", DataTable)
        await wait_for(pilot, lambda: table.row_count >= 10, message="the handshake and listings")
        table.focus()
        table.move_cursor(row=3)  # the tools/list response
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
