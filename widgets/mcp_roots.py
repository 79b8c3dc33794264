"""The inspector's Roots tab: the roots offered to one server (the workspace until changed), with a
field to add a directory or file:// URI and a button to remove the highlighted root. Each change is
sent as `notifications/roots/list_changed`, so the server asks for the new list.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from app.mcp.inspection import Root, root_from_text


class RootsEditor(Vertical):
    """List, add and remove the roots of the server on show."""

    DEFAULT_CSS = """
    RootsEditor { padding: 1 2; }
    RootsEditor #roots-list { height: auto; max-height: 12; border: round $primary 50%; }
    RootsEditor #roots-add-row { height: auto; margin: 1 0 0 0; }
    RootsEditor #roots-input { width: 1fr; }
    RootsEditor Button { margin: 0 0 0 1; }
    RootsEditor #roots-status { margin: 1 0 0 0; height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.manager: Any = None
        self.server: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="roots-heading")
        yield OptionList(id="roots-list")
        with Horizontal(id="roots-add-row"):
            box = Input(placeholder="a directory (relative to the workspace) or a file:// URI", id="roots-input",
                        compact=True)
            box.cursor_blink = False
            yield box
            yield Button("Add", id="roots-add", compact=True)
            yield Button("Remove", id="roots-remove", compact=True, variant="error")
        yield Static("", id="roots-status")

    def show_server(self, manager: Any, server: str | None) -> None:
        changed = server != self.server
        self.manager, self.server = manager, server
        if changed:
            self._status("")
        self._show_roots()

    def _roots(self) -> list[Root]:
        if self.manager is None or self.server not in self.manager.servers:
            return []
        return self.manager.roots_of(self.server)

    def _show_roots(self) -> None:
        options = self.query_one("#roots-list", OptionList)
        keep = options.highlighted
        options.clear_options()
        roots = self._roots()
        state = self.manager.servers.get(self.server) if self.manager is not None and self.server else None
        custom = state is not None and state.inspection.roots is not None
        heading = Text(f"Roots offered to {self.server}" if self.server else "No server", style="bold")
        heading.append("  (set here)" if custom else "  (the workspace, by default)", style="dim")
        self.query_one("#roots-heading", Static).update(heading)
        for root in roots:
            label = Text(root.name or root.uri, style="bold")
            label.append(f"  {root.uri}", style="dim")
            options.add_option(Option(label))
        if not roots:
            options.add_option(Option(Text("(no roots: the server is offered none)", style="dim italic"),
                                      disabled=True))
        elif keep is not None:
            options.highlighted = min(keep, len(roots) - 1)

    @on(Input.Submitted, "#roots-input")
    @on(Button.Pressed, "#roots-add")
    def _add(self, event: Any) -> None:
        event.stop()
        box = self.query_one("#roots-input", Input)
        try:
            root = root_from_text(box.value, self.manager.workspace if self.manager is not None else None)
        except ValueError as exc:
            self._status(Text(f"✖ {exc}", style="red"))
            return
        roots = self._roots()
        if any(r.uri == root.uri for r in roots):
            self._status(Text(f"{root.uri} is already a root.", style="yellow"))
            return
        box.value = ""
        self._change(roots + [root], f"Added {root.uri}")

    @on(Button.Pressed, "#roots-remove")
    def _remove(self, event: Button.Pressed) -> None:
        event.stop()
        roots = self._roots()
        index = self.query_one("#roots-list", OptionList).highlighted
        if index is None or not 0 <= index < len(roots):
            self._status(Text("Highlight a root to remove first.", style="yellow"))
            return
        removed = roots.pop(index)
        self._change(roots, f"Removed {removed.uri}")

    def _change(self, roots: list[Root], done: str) -> None:
        server = self.server
        if self.manager is None or server is None:
            return
        self.run_worker(self._send(server, roots, done), group="mcp-roots", exclusive=True, exit_on_error=False)

    async def _send(self, server: str, roots: list[Root], done: str) -> None:
        from app.runtime.error_log import in_words

        try:
            told = await self.manager.set_roots(server, roots)
        except Exception as exc:  # noqa: BLE001 - the words go on screen
            self._status(Text(in_words("Changing the roots", exc), style="red"))
            return
        if server == self.server:
            self._show_roots()
            self._status(Text(f"{done}; sent notifications/roots/list_changed." if told else
                              f"{done}; the server is not connected: it reads them when it next asks.",
                              style="green" if told else "yellow"))

    def _status(self, text: Any) -> None:
        self.query_one("#roots-status", Static).update(text)
