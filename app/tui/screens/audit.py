"""The audit screen (palette, /audit): every tool call with who decided, filtered by tool, decision,
workstream and time; rows load on a worker from the store."""

from __future__ import annotations

import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Select, Static

from widgets.key_hints import key_hint
from app.vocabulary.inert import inert
from styles import STYLES_DIR

DECISION_STYLES = {"refused": "bold red", "denied": "red", "approved": "yellow", "allowed": "green"}
SPANS = [("last hour", "1h"), ("last day", "1d"), ("last week", "1w"), ("last 30 days", "30d")]
COLUMNS = ("time", "workstream", "tool", "decision", "decided by", "status", "ms", "sandbox")
DECIDED_BY_WIDTH = 70


class AuditScreen(ModalScreen[None]):
    CSS_PATH = STYLES_DIR / "policy.tcss"
    BINDINGS = [Binding("escape", "dismiss_screen", "Close", priority=True, id="audit.close")]

    def __init__(self, store, now: float | None = None) -> None:
        super().__init__()
        self.store = store  # an AsyncStore
        self.now = now  # fixed in tests, so times do not move

    def compose(self) -> ComposeResult:
        with Vertical(id="audit-dialog"):
            yield Static(Text("Audit log: every tool call and who decided", style="bold"), id="audit-heading")
            with Horizontal(id="audit-filters"):
                yield Input(placeholder="tool (glob, e.g. mcp__*)", id="audit-tool")
                yield Input(placeholder="workstream id or sub-agent (task-1)", id="audit-workstream")
                yield Select([("any decision", ""), *((d, d) for d in DECISION_STYLES)], value="",
                             allow_blank=False, id="audit-decision")
                yield Select(SPANS, value="1d", allow_blank=False, id="audit-since")
            yield DataTable(id="audit-rows", cursor_type="row", zebra_stripes=True)
            yield Static("", id="audit-count")
            yield Static(f"Filters apply as you type   [b]{key_hint(self, 'audit.close')}[/] close   "
                         "(also: whimbrel audit --since 1d --json)",
                         id="audit-keys")

    def on_mount(self) -> None:
        self._shown: tuple | None = None  # the filters whose rows are on screen
        self.query_one("#audit-tool", Input).focus()  # typing filters at once; Tab reaches the rows
        self.reload()

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.reload()

    def on_select_changed(self, _event: Select.Changed) -> None:
        self.reload()

    @work(group="audit-load", exclusive=True, exit_on_error=False)
    async def reload(self) -> None:
        """Query with the filters as they are now; the selects' first Changed events repeat the mount's."""
        from app.permissions.audit import parse_since, query

        since = parse_since(str(self.query_one("#audit-since", Select).value), self.now)
        tool = self.query_one("#audit-tool", Input).value.strip() or None
        workstream = self.query_one("#audit-workstream", Input).value.strip() or None
        decision = str(self.query_one("#audit-decision", Select).value) or None
        filters = (since, tool, workstream, decision)
        if filters == self._shown:
            return
        rows = await self.store.run(query, self.store.store.engine, since=since, tool=tool, decision=decision,
                                    workstream=workstream, limit=2000)
        self._show(rows)
        self._shown = filters

    def _show(self, rows: list) -> None:
        """The rows, newest first, in columns as wide as their widest cell (measured here, so the
        table never depends on when the DataTable measures rows added in a burst)."""
        cells = [(time.strftime("%m-%d %H:%M:%SZ", time.gmtime(row.created_at)),
                  row.workstream_id[:8] + (f" {inert(row.agent, multiline=False)[:12]}" if row.agent else ""),
                  Text(inert(row.tool, multiline=False)),
                  Text(row.decision, style=DECISION_STYLES.get(row.decision, "")),
                  Text(inert(row.decided_by, multiline=False)[:DECIDED_BY_WIDTH]), row.status,
                  "" if row.duration_ms is None else f"{row.duration_ms:.0f}", row.sandbox)
                 for row in reversed(rows)]
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for index, label in enumerate(COLUMNS):
            table.add_column(label, width=max([len(label), *(_cell_width(c[index]) for c in cells)]))
        for row in cells:
            table.add_row(*row)
        self.query_one("#audit-count", Static).update(f"{len(rows)} call(s)")

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)


def _cell_width(cell: str | Text) -> int:
    return (cell if isinstance(cell, Text) else Text(cell)).cell_len
