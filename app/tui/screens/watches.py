"""/watches: every active watch (all workstreams), with its command, interval and condition; `c`
cancels the highlighted one. The screen only shows rows; the app's callback does the cancelling."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from widgets.key_hints import key_hint
from app.vocabulary.inert import inert
from styles import STYLES_DIR

Cancel = Callable[[str], Awaitable[None]]


def _interval(seconds: float) -> str:
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"


class WatchesScreen(ModalScreen[None]):
    CSS_PATH = STYLES_DIR / "providers.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="watches.close"), Binding("c", "cancel_watch", "Cancel watch", id="watches.cancel_watch")]

    def __init__(self, rows: list[dict[str, Any]], titles: dict[str, str], cancel: Cancel) -> None:
        super().__init__()
        self.rows = rows
        self.titles = titles
        self.cancel = cancel

    def compose(self) -> ComposeResult:
        with Vertical(classes="provider-dialog"):
            yield Static("Watches", classes="heading")
            yield DataTable(id="watch-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="watch-status", classes="status")
            yield Static(f"{key_hint(self, 'watches.cancel_watch')} cancels the highlighted watch · "
                         f"{key_hint(self, 'watches.close')} closes", classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("workstream", "name", "command", "every", "until", "polls")
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for row in self.rows:
            title = self.titles.get(row["workstream_id"]) or row["workstream_id"][:8]
            table.add_row(Text(inert(title, multiline=False)[:20]), Text(inert(row["name"], multiline=False)),
                          Text(inert(row["command"], multiline=False)[:40]), _interval(row["interval"]),
                          Text(inert(row["stop_on"] or "output changes", multiline=False)[:34]),
                          f"{row['polls']}/{row['max_polls']}", key=row["id"])
        self.query_one("#watch-status", Static).update(
            f"{len(self.rows)} active" if self.rows else "No active watches: a model starts one with the watch tool.")

    async def action_cancel_watch(self) -> None:
        table = self.query_one(DataTable)
        if not self.rows:
            return
        row = self.rows[table.cursor_row]
        await self.cancel(row["id"])
        self.rows = [r for r in self.rows if r["id"] != row["id"]]
        self._fill()
        self.query_one("#watch-status", Static).update(f"Cancelled {row['name']}.")
