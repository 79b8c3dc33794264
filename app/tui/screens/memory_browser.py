"""The memory browser: list, search, view, edit (inline or in $EDITOR) and delete memories,
filtered by type and scope. Every read and write goes through the MemoryService (off the UI loop)."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Select, Static, TextArea

from widgets.key_hints import key_hint
from app.memory.records import SCOPES, TYPES, InvalidMemory, Memory
from app.vocabulary.inert import inert
from app.tui.screens.confirm import ConfirmScreen

ALL = "all"


def saver(memory: Memory) -> str:
    """Who saved `memory` last, on one line and inert (a name from the store, maybe a teammate's)."""
    return inert(" ".join((memory.who or "").split()), multiline=False)


class MemoryBrowser(ModalScreen[None]):
    """Memories this workstream sees (or every memory, with the scope filter on 'everywhere')."""

    DEFAULT_CSS = """
    MemoryBrowser { align: center middle; }
    #memory-dialog { width: 96%; height: 92%; border: round $accent; background: $surface; padding: 0 1; }
    #memory-filters { height: 3; }
    #memory-search { width: 1fr; }
    #memory-filters Select { width: 22; }
    #memory-body { height: 1fr; }
    #memory-table { width: 5fr; }
    #memory-detail { width: 2fr; border-left: solid $panel-lighten-2; padding: 0 1; }
    #memory-editor { width: 1fr; display: none; }
    MemoryBrowser.editing #memory-editor { display: block; }
    MemoryBrowser.editing #memory-detail { display: none; }
    #memory-status { color: $text-muted; height: 1; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="memory_browser.close"),
        Binding("e", "edit", "Edit", id="memory_browser.edit"),
        Binding("ctrl+e", "external_edit", "$EDITOR", id="memory_browser.external_edit"),
        Binding("delete,x", "delete", "Delete", id="memory_browser.delete"),
        Binding("ctrl+s", "save_edit", "Save", show=False, id="memory_browser.save"),
        Binding("down", "focus_table", "Results", show=False, id="memory_browser.focus_results"),
    ]

    def __init__(self, service, visibility, query: str = "") -> None:
        super().__init__()
        self.service = service
        self.visibility = visibility
        self.initial_query = query
        self.shown: list[Memory] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-dialog"):
            yield Static(f"[b]Memories[/b]  type to search · {key_hint(self, 'memory_browser.edit')} edit · "
                         f"{key_hint(self, 'memory_browser.external_edit')} $EDITOR · "
                         f"{key_hint(self, 'memory_browser.delete', every=True).rsplit('/', 1)[-1]} delete · "  # x
                         f"{key_hint(self, 'memory_browser.close')} close",
                         id="memory-heading")
            with Horizontal(id="memory-filters"):
                yield Input(self.initial_query, placeholder="search names, descriptions, content…",
                            id="memory-search")
                yield Select([("any type", ALL)] + [(t, t) for t in TYPES], value=ALL, allow_blank=False,
                             id="memory-type")
                yield Select([("visible here", ALL)] + [(s, s) for s in SCOPES] + [("everywhere", "*")],
                             value=ALL, allow_blank=False, id="memory-scope")
            with Horizontal(id="memory-body"):
                yield DataTable(id="memory-table", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="memory-detail"):
                    yield Static("", id="memory-content", markup=False)
                yield TextArea("", id="memory-editor")
            yield Static("", id="memory-status")

    def on_mount(self) -> None:
        self.query_one("#memory-search", Input).focus()
        self.load()

    # -- listing --------------------------------------------------------------------------
    def on_resize(self) -> None:
        """The description column's width follows the table's: measured again at a new size."""
        self.load()

    @on(Input.Changed, "#memory-search")
    @on(Select.Changed)
    def filters_changed(self) -> None:
        self.load()

    def _filters(self) -> tuple[str, str | None, str | None, object]:
        query = self.query_one("#memory-search", Input).value
        kind = self.query_one("#memory-type", Select).value
        scope = self.query_one("#memory-scope", Select).value
        visibility = None if scope == "*" else self.visibility
        return query, None if kind == ALL else str(kind), None if scope in (ALL, "*") else str(scope), visibility

    @work(exclusive=True, group="memory-load")
    async def load(self) -> None:
        query, kind, scope, visibility = self._filters()
        if query.strip():
            found = await self.service.search(visibility, query, type=kind, scope=scope, limit=500)
        else:
            found = await self.service.list(visibility, type=kind, scope=scope, limit=500)
        self.shown = found
        table = self.query_one(DataTable)
        table.clear(columns=True)
        rows = [(Text(m.name, style="bold"), m.type, m.scope, saver(m), str(m.access_count), m.description)
                for m in found]
        headers = ("name", "type", "scope", "by", "uses", "description")
        widths = [max([len(h)] + [len(str(r[i])) for r in rows]) for i, h in enumerate(headers)]
        widths = [min(width, most) for width, most in zip(widths, (24, 9, 10, 12, 4, widths[-1]))]
        # the description gets the rest of the table's width (each column has a cell of padding each side);
        # what still does not fit, the detail pane shows whole
        room = table.scrollable_content_region.width - sum(widths[:-1]) - 2 * len(headers) - 1
        widths[-1] = min(widths[-1], max(room, 18))
        for header, width in zip(headers, widths):
            table.add_column(header, width=width)
        table.add_rows(rows)
        self.query_one("#memory-status", Static).update(f"{len(found)} memor{'y' if len(found) == 1 else 'ies'}")
        self.show_current()

    def current(self) -> Memory | None:
        table = self.query_one(DataTable)
        if not self.shown or not table.row_count:
            return None
        return self.shown[min(table.cursor_row, len(self.shown) - 1)]

    @on(DataTable.RowHighlighted)
    def show_current(self) -> None:
        memory = self.current()
        detail = "" if memory is None else (
            f"{memory.name}  ({memory.type}, {memory.scope}{', saved by ' + saver(memory) if memory.who else ''})\n"
            f"{memory.description}\n\n{memory.content}")
        self.query_one("#memory-content", Static).update(detail or "No memories match.")

    def action_focus_table(self) -> None:
        self.query_one(DataTable).focus()

    # -- editing --------------------------------------------------------------------------
    def action_edit(self) -> None:
        memory = self.current()
        if memory is None or isinstance(self.focused, (Input, TextArea)):
            return
        editor = self.query_one("#memory-editor", TextArea)
        editor.text = memory.content
        self.add_class("editing")
        editor.focus()
        self.query_one("#memory-status", Static).update(f"editing {memory.name}: Ctrl+S saves, Esc cancels")

    def action_close(self) -> None:
        if self.has_class("editing"):
            self.remove_class("editing")
            self.query_one(DataTable).focus()
            self.load()
        else:
            self.dismiss(None)

    async def action_save_edit(self) -> None:
        memory = self.current()
        if memory is None or not self.has_class("editing"):
            return
        await self._store_content(memory, self.query_one("#memory-editor", TextArea).text)
        self.remove_class("editing")
        self.query_one(DataTable).focus()

    async def _store_content(self, memory: Memory, content: str) -> None:
        try:
            await self.service.update(memory.id, content=content)
        except InvalidMemory as error:
            self.query_one("#memory-status", Static).update(f"not saved: {error}")
            return
        self.load()

    async def action_external_edit(self) -> None:
        """Edit the content in $VISUAL / $EDITOR (the screen is handed to it meanwhile)."""
        memory = self.current()
        if memory is None:
            return
        command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not command:
            self.query_one("#memory-status", Static).update("set $EDITOR to edit in your editor; e edits here")
            return
        status = self.query_one("#memory-status", Static)
        with tempfile.TemporaryDirectory(prefix="whimbrel-memory-") as folder:
            path = Path(folder) / f"{memory.name}.md"
            path.write_text(memory.content, encoding="utf-8")
            try:
                with self.app.suspend():
                    finished = subprocess.run([*shlex.split(command), str(path)], check=False)
            except SuspendNotSupported:
                status.update("this terminal cannot be handed to an editor; e edits here")
                return
            except (OSError, ValueError) as error:
                status.update(f"could not start the editor {command!r}: {error}")
                return
            content = path.read_text(encoding="utf-8", errors="replace")
        if finished.returncode != 0:
            self.query_one("#memory-status", Static).update(f"the editor exited with {finished.returncode}: "
                                                             "nothing changed")
        elif content != memory.content:
            await self._store_content(memory, content)

    def action_delete(self) -> None:
        memory = self.current()
        if memory is None or isinstance(self.focused, Input):
            return

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.run_worker(self._delete(memory), exit_on_error=False)

        self.app.push_screen(ConfirmScreen(f"Delete the memory {memory.name} ({memory.scope})?"), callback=confirmed)

    async def _delete(self, memory: Memory) -> None:
        await self.service.delete_memory(memory)
        self.load()
