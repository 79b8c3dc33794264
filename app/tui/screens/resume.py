"""The resume browser: saved workstreams, full-text search over all history, open or delete."""

from __future__ import annotations

import time
from typing import Callable

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from widgets.key_hints import key_hint
from app.tui.screens.confirm import ConfirmScreen
from styles import STYLES_DIR


def age(seconds: float) -> str:
    """'just now', '5 min ago', '3 h ago', '12 d ago'."""
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def highlight(hit) -> Text:
    """A search hit's snippet with the matched words emphasised."""
    text = Text()
    for piece, is_match in hit.spans():
        text.append(piece, style="bold reverse" if is_match else "")
    return text


def _name(name: str, open_elsewhere: str | None) -> Text:
    """A row's name; `open_elsewhere`: who has it open in another window ("" when the lease does not say)."""
    text = Text(name, style="bold")
    if open_elsewhere is not None:
        text.append("  · open in another window" + (f" by {open_elsewhere}" if open_elsewhere else ""),
                    style="yellow")
    return text


def _width(cell: Text | str) -> int:
    return max((cell_len(line) for line in str(cell).splitlines()), default=0)


def _fill(table: DataTable, headers: tuple[str, ...], rows: list[tuple]) -> None:
    """Replace the table's columns and rows. Each column gets the width of its widest cell up front:
    DataTable widens auto-width columns only when idle, and a frame painted before that stays cached
    with the narrow widths."""
    table.clear(columns=True)
    for index, header in enumerate(headers):
        table.add_column(header, width=max([_width(header)] + [_width(row[index]) for row in rows]))
    table.add_rows(rows)


class ResumeScreen(ModalScreen[str | None]):
    """Dismisses with the chosen workstream id (Enter), or None (Esc)."""

    CSS_PATH = STYLES_DIR / "screens.tcss"

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close", id="resume.close"),
        Binding("delete", "delete", "Delete", id="resume.delete"),
        Binding("down", "focus_table", "Results", show=False, id="resume.focus_results"),
    ]

    def __init__(self, store, query: str = "", *, now: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.store = store
        self.initial_query = query
        self.now = now
        self.row_ids: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="resume-dialog"):
            yield Static("[b]Resume a workstream[/b]  type to search all history · Enter opens · "
                         f"{key_hint(self, 'resume.delete')} deletes · {key_hint(self, 'resume.close')} closes",
                         id="resume-heading")
            yield Input(self.initial_query, placeholder="search messages…", id="resume-search")
            yield DataTable(id="resume-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="resume-status")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.load(self.initial_query)

    @on(Input.Changed)
    def search_changed(self, event: Input.Changed) -> None:
        self.load(event.value)

    @on(Input.Submitted)
    def search_submitted(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            self.dismiss(self.row_ids[table.cursor_row])

    @on(DataTable.RowSelected)
    def row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(self.row_ids[event.cursor_row])

    def action_focus_table(self) -> None:
        self.query_one(DataTable).focus()

    @work(exclusive=True, group="resume-load")
    async def load(self, query: str) -> None:
        """List workstreams, or full-text hits when there is a query (off the UI thread via the store)."""
        table = self.query_one(DataTable)
        now = self.now()
        elsewhere = await self._open_elsewhere()
        if query.strip():
            hits = await self.store.search(query, limit=100)
            headers = ("workstream", "when", "who", "match")
            rows = [(_name(hit.title or hit.workstream_id[:8], elsewhere.get(hit.workstream_id)),
                     age(now - hit.created_at), hit.role, highlight(hit)) for hit in hits]
            self.row_ids = [hit.workstream_id for hit in hits]
            status = f"{len(hits)} matching message(s)"
        else:
            from app.checkpoints.fork import tree_order  # the store's side: not at startup
            from app.checkpoints.records import fork_parents

            infos = [i for i in await self.store.list_workstreams() if i.message_count]
            tree = tree_order(infos, await self.store.run(fork_parents, self.store.store))  # forks under parents
            headers = ("workstream", "last activity", "messages", "model")
            rows = [(_name(("   " * (depth - 1) + " └ " if depth else "") + (info.alias or info.title or "(untitled)"),
                           elsewhere.get(info.id)),
                     age(now - info.updated_at), str(info.message_count), Text(info.model or "")) for info, depth in tree]
            self.row_ids = [info.id for info, _depth in tree]
            status = f"{len(infos)} saved workstream(s)"
        _fill(table, headers, rows)
        self.query_one("#resume-status", Static).update(status)

    async def _open_elsewhere(self) -> dict[str, str]:
        """The workstreams another running window has open (they open read-only here): id -> who."""
        manager = getattr(self.app, "manager", None)
        here = manager.ownership.owner.instance_id if manager is not None else ""
        return {lease.workstream_id: lease.who or "" for lease in await self.store.live_leases()
                if lease.owner.instance_id != here}

    def action_delete(self) -> None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return
        workstream_id = self.row_ids[table.cursor_row]

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.run_worker(self._delete(workstream_id), exit_on_error=False)

        self.app.push_screen(ConfirmScreen(f"Delete workstream {workstream_id[:8]} and all its history?"),
                             callback=confirmed)

    async def _delete(self, workstream_id: str) -> None:
        await self.app.workspace.forget_workstream(workstream_id)  # type: ignore[attr-defined]
        self.load(self.query_one(Input).value)
