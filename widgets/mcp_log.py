"""The inspector's live logs: the JSON-RPC protocol log (direction, kind, id, method, timing, payload)
and the server's own words (log notifications, Whimbrel's notes about it, and its stderr).

Both read the server's `ServerLogs` ring buffers; `poll()` appends only what is new since the last look.
"""

from __future__ import annotations

import json
import time
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Select, Static

from app.mcp.inspection import LOG_LEVELS

from widgets.mcp_result import pretty_json

KIND_STYLE = {"request": "cyan", "response": "green", "notification": "yellow", "error": "bold red"}
LEVEL_STYLE = {"debug": "dim", "info": "", "notice": "cyan", "warning": "yellow", "error": "red",
               "critical": "bold red", "alert": "bold red", "emergency": "bold red"}


def clock_time(at: float) -> str:
    """Wall-clock time with milliseconds, e.g. 14:03:07.412."""
    return time.strftime("%H:%M:%S", time.localtime(at)) + f".{int(at * 1000) % 1000:03d}"


def _new_entries(buffer: Any, last: Any) -> tuple[list[Any], bool]:
    """(entries after `last`, whether the buffer must be shown from scratch: `last` rotated out)."""
    if last is None:
        return list(buffer), True
    new = []
    for entry in reversed(buffer):
        if entry is last:
            return list(reversed(new)), False
        new.append(entry)
    return list(buffer), True


class ProtocolLog(Vertical):
    """A table of JSON-RPC messages, newest last (followed while the cursor is on the last row);
    the highlighted message's payload is shown below it, pretty-printed."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state: Any = None
        self._last: Any = None
        self._entries: list[Any] = []

    def compose(self) -> ComposeResult:
        table: DataTable = DataTable(id="protocol-table", cursor_type="row", zebra_stripes=True)
        yield table
        with VerticalScroll(id="protocol-payload-scroll"):
            yield Static(Text("Highlight a message to see its payload.", style="dim"), id="protocol-payload")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("time", width=12)
        table.add_column("dir", width=3)
        table.add_column("kind", width=12)
        table.add_column("id", width=8)
        table.add_column("method")  # sized to the longest method: `notifications/tools/list_changed` in full
        table.add_column("ms", width=9)

    def show_server(self, state: Any | None) -> None:
        if state is not self.state:
            self.state, self._last = state, None
        self.poll()

    def poll(self) -> None:
        table = self.query_one(DataTable)
        if self.state is None:
            table.clear()
            self._entries = []
            return
        new, restart = _new_entries(self.state.logs.protocol, self._last)
        if restart:
            table.clear()
            self._entries = []
        if not new:
            if restart:
                self._show_payload(None)
            return
        follow = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        for entry in new:
            style = KIND_STYLE.get(entry.kind, "")
            timing = f"{entry.elapsed_ms:.1f}" if entry.elapsed_ms is not None else ""
            table.add_row(Text(clock_time(entry.at), style="dim"),
                          Text(entry.direction, style="bold"),
                          Text(entry.kind, style=style),
                          Text("" if entry.id is None else str(entry.id)),
                          Text(entry.method), Text(timing, justify="right"))
            self._entries.append(entry)
        self._last = new[-1]
        if follow:
            table.move_cursor(row=table.row_count - 1)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        index = event.cursor_row
        self._show_payload(self._entries[index] if 0 <= index < len(self._entries) else None)

    def _show_payload(self, entry: Any | None) -> None:
        payload = self.query_one("#protocol-payload", Static)
        if entry is None:
            payload.update(Text("Highlight a message to see its payload.", style="dim"))
            return
        try:
            body: RenderableType = pretty_json(json.loads(entry.payload))
        except (TypeError, ValueError):
            body = Text(entry.payload or "(no payload)")
        timing = f"  {entry.elapsed_ms:.1f} ms" if entry.elapsed_ms is not None else ""
        heading = Text(f"{entry.direction} {entry.kind} {entry.method}{timing}", style="bold")
        payload.update(Group(heading, body))


class LevelBar(Horizontal):
    """The server's log level (logging/setLevel), for a server that offers logging."""

    DEFAULT_CSS = """
    LevelBar { height: auto; margin: 0 0 1 0; }
    LevelBar Static { width: auto; padding: 0 1 0 0; }
    LevelBar Select { width: 24; }
    """

    class Chosen(Message):
        def __init__(self, level: str) -> None:
            super().__init__()
            self.level = level

    def compose(self) -> ComposeResult:
        yield Static("Log level", classes="level-label")
        yield Select([(level, level) for level in LOG_LEVELS], prompt="(server's own)", id="log-level",
                     compact=True)
        yield Static("", id="log-level-note")

    def show(self, state: Any | None) -> None:
        offered = state is not None and "logging" in (state.capabilities or {})
        self.display = offered
        if not offered:
            return
        select = self.query_one(Select)
        level = state.inspection.log_level
        with self.prevent(Select.Changed):
            select.value = level if level else Select.NULL
        self.query_one("#log-level-note", Static).update(
            Text(f"the server sends {level} and above" if level else "not set here: the server's default",
                 style="dim"))

    @on(Select.Changed, "#log-level")
    def _changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self.post_message(self.Chosen(event.value))


class ServerMessages(VerticalScroll):
    """The log level, log messages (notifications/message and Whimbrel's notes, each with its level) and
    the tail of a stdio server's stderr."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state: Any = None
        self._shown: tuple[Any, Any, str] | None = None

    def compose(self) -> ComposeResult:
        yield LevelBar()
        yield Static("", id="messages-log")
        yield Static("", id="messages-stderr")

    def show_server(self, state: Any | None) -> None:
        self.state = state
        self.query_one(LevelBar).show(state)
        self.poll()

    @on(LevelBar.Chosen)
    def _level_chosen(self, event: LevelBar.Chosen) -> None:
        event.stop()
        state = self.state
        if state is not None and event.level != state.inspection.log_level:
            self.run_worker(self._set_level(state.name, event.level), group="mcp-log-level", exclusive=True,
                            exit_on_error=False)

    async def _set_level(self, server: str, level: str) -> None:
        from app.runtime.error_log import in_words

        try:
            await self.app.mcp.manager.set_log_level(server, level)
        except Exception as exc:  # noqa: BLE001 - the words go on screen
            self.query_one("#log-level-note", Static).update(Text(in_words("Setting the log level", exc),
                                                                  style="red"))
            return
        if self.state is not None and self.state.name == server:
            self.query_one(LevelBar).show(self.state)

    def poll(self) -> None:
        state = self.state
        if state is None:
            self.query_one("#messages-log", Static).update("")
            self.query_one("#messages-stderr", Static).update("")
            return
        last = state.logs.messages[-1] if state.logs.messages else None
        stderr = state.stderr_tail()  # a local temp file of at most a few KB
        if self._shown == (state, last, stderr):
            return
        self._shown = (state, last, stderr)
        follow = self.is_vertical_scroll_end
        log = Text("Log messages\n", style="bold")
        if not state.logs.messages:
            log.append("(none yet)\n", style="dim")
        for entry in state.logs.messages:
            log.append(clock_time(entry.at), style="dim")
            log.append(f" {entry.level:<8}", style=LEVEL_STYLE.get(entry.level, ""))
            log.append(f" {entry.logger}: ", style="bold")
            log.append(entry.text + "\n")
        self.query_one("#messages-log", Static).update(log)
        err = Text("\nstderr\n", style="bold")
        if state.transport != "stdio":
            err.append(f"(a {state.transport} server has no stderr here)", style="dim")
        else:
            err.append(stderr or "(empty)", style="" if stderr else "dim")
        self.query_one("#messages-stderr", Static).update(err)
        if follow:
            self.scroll_end(animate=False)
