"""/team: the live instances on this store and the workstreams each has open; Enter follows one.

    app.push_screen(TeamScreen(app.store.live_instances, own=app.manager.ownership.owner.instance_id),
                    callback=lambda ws_id: ...)   # dismisses with the chosen workstream's id, or None

One row per open workstream: who holds it (app/storage/identity.py), on which host and pid, the
workstream, its state (streaming while a reply streams into the store, otherwise idle) and when its
holder last beat. On PostgreSQL it re-reads as soon as any instance writes into a workstream (the
app's store listener, app/tui/workstreams/ownership_wiring.py); everywhere it also refreshes every REFRESH seconds: `load` (the store's
`live_instances`, run on the store's own thread by AsyncStore) is awaited in a worker, so the UI never
waits on the store; the cursor stays on the workstream it was on. Enter dismisses with that
workstream's id: the caller opens it, read-only when another instance holds it.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from styles import STYLES_DIR
from widgets.key_hints import key_hint

REFRESH = 1.0  # seconds between reloads of the list

Load = Callable[[], Awaitable[list[Any]]]  # -> list[app.storage.team.TeamInstance]


def seen(seconds: float) -> str:
    """When an instance last beat, in words: "now", "4 s ago", "2 min ago"."""
    if seconds < 1.5:
        return "now"
    return f"{seconds:.0f} s ago" if seconds < 90 else f"{seconds / 60:.0f} min ago"


def _state(state: str) -> Text:
    style = {"streaming": "bold green", "approval": "bold yellow"}.get(state, "dim")
    return Text({"approval": "waiting for approval"}.get(state, state), style=style)


class TeamScreen(ModalScreen[str | None]):
    follows_store = True  # on PostgreSQL the app's store listener calls reload() at each write (pg_listen.py)
    CSS_PATH = STYLES_DIR / "providers.tcss"
    BINDINGS = [
        Binding("escape,q", "dismiss(None)", "Close", id="team.close"),
        Binding("enter", "follow", "Open", show=False, id="team.open"),
    ]

    def __init__(self, load: Load, *, own: str = "", store: str = "", refresh: float | None = REFRESH) -> None:
        super().__init__()
        self.load = load
        self.own = own  # this instance's id: its rows say "(this window)"
        self.store_name = store
        self.refresh_every = refresh
        self.instances: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="provider-dialog", id="team-dialog"):
            yield Static("Team: live instances on this store" + (f" ({self.store_name})" if self.store_name else ""),
                         classes="heading")
            yield DataTable(id="team-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="team-status", classes="status")
            yield Static(f"{key_hint(self, 'team.open')} opens the workstream (read-only when another instance "
                         f"has it)   {key_hint(self, 'team.close')} closes", classes="hint")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("who", "host", "pid", "workstream", "state", "last seen")
        self.reload()
        if self.refresh_every:
            self.set_interval(self.refresh_every, self.reload)

    @work(exclusive=True, group="team-load", exit_on_error=False)
    async def reload(self) -> None:
        """Read the live instances (on the store's thread) and redraw the table."""
        try:
            instances = await self.load()
        except Exception as error:  # the store unreachable: said, and tried again at the next tick
            self.query_one("#team-status", Static).update(f"Cannot read the store: {error}")
            return
        self.show(instances)

    def show(self, instances: list[Any]) -> None:
        """Redraw the rows; the cursor stays on the workstream it was on."""
        self.instances = instances
        table = self.query_one(DataTable)
        selected = self.selected()
        table.clear()
        for instance in instances:
            whom = instance.who + (" (this window)" if instance.instance_id == self.own else "")
            for n, ws in enumerate(instance.workstreams):
                first = n == 0
                table.add_row(Text(whom[:30] if first else ""), Text(instance.host[:24] if first else ""),
                              str(instance.pid) if first else "", Text(ws.name[:32]), _state(ws.state),
                              seen(instance.seen_ago) if first else "", key=ws.id)
        rows = [ws.id for instance in instances for ws in instance.workstreams]
        if selected in rows:
            table.move_cursor(row=rows.index(selected), animate=False)
        count = len(instances)
        self.query_one("#team-status", Static).update(
            f"{count} live instance{'s' if count != 1 else ''}, {len(rows)} open workstream{'s' if len(rows) != 1 else ''}"
            if count else "No live instance holds a workstream on this store.")

    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    @on(DataTable.RowSelected)
    def row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)

    def action_follow(self) -> None:
        self.dismiss(self.selected())


def open_team(app: Any) -> None:
    """/team and the palette: the screen over the app's store; the chosen workstream opens in this
    window (app.workspace.open_workstream: read-only while another live instance holds it)."""

    def chosen(workstream_id: str | None) -> None:
        if workstream_id:
            app.run_worker(app.workspace.open_workstream(workstream_id), group="open", exit_on_error=False)

    app.push_screen(TeamScreen(app.store.live_instances, own=app.manager.ownership.owner.instance_id,
                               refresh=REFRESH), callback=chosen)
