"""The inspector's History tab: each call made by hand on the server on show (tool calls, reads, prompts),
newest first, with its arguments and what it answered; Enter (or Run again) makes the same call again
from its own tab, its form filled as it was.

Calls are kept in the store (app/storage/mcp_call_store.py) when the app has one, so the list survives
a restart and shows the calls another instance on the same store made; without a store (a store that
could not be opened) it is the session's own calls, in memory.
"""

from __future__ import annotations

import json
import time
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from app.mcp.inspection import CallRecord
from widgets.mcp_result import pretty_json, render_answer

KIND_WORDS = {"tools": "call", "resources": "read", "prompts": "prompt"}


def _store_of(app: Any) -> Any:
    store = getattr(app, "store", None)
    return store if store is not None and not getattr(store, "lost", False) else None


async def save_call(app: Any, server: str, record: CallRecord) -> bool:
    """Keep one call in the app's store, bounded by the retention setting; False when there is no store
    or the write failed (the call stays in memory and the user is told once)."""
    from app.storage import mcp_call_store

    store = _store_of(app)
    if store is None:
        return False
    options = getattr(app, "options", None)
    try:
        await store.run(mcp_call_store.record, store.store, server, kind=record.kind, item=record.key,
                        label=record.label, arguments=record.arguments, raw=record.raw, ok=record.ok,
                        elapsed_ms=record.elapsed_ms, answer=record.answer or {}, at=record.at,
                        retention_days=getattr(options, "retention_days", 0) or 0)
    except Exception as exc:  # noqa: BLE001 - a full disk or a locked file loses the row, never the call
        app.notify(f"The call was not saved in the history: {exc}", severity="warning", timeout=5)
        return False
    return True


async def load_calls(app: Any, server: str) -> list[CallRecord] | None:
    """The server's stored calls, oldest first; None when there is no store or it cannot be read."""
    from app.storage import mcp_call_store

    store = _store_of(app)
    if store is None:
        return None
    try:
        rows = await store.run(mcp_call_store.recent, store.store, server)
    except Exception:  # noqa: BLE001 - the in-memory history is shown instead
        return None
    return [CallRecord(row["at"], row["kind"], row["item"], row["label"], row["arguments"], row["raw"],
                       bool(row["ok"]), row["elapsed_ms"], None, row["answer"]) for row in rows]


class CallHistory(Horizontal):
    """The list of calls on the left, the chosen call's arguments and answer on the right."""

    DEFAULT_CSS = """
    CallHistory #history-list { width: 44; height: 1fr; border: none; border-right: vkey $primary 30%; }
    CallHistory #history-detail { width: 1fr; height: 1fr; padding: 0 1 0 2; }
    CallHistory #history-actions { height: auto; margin: 0 0 1 0; }
    """

    class RunAgain(Message):
        """Make this call again: `kind` names the tab, `key` the item, `raw` the form's values."""

        def __init__(self, kind: str, key: str, raw: dict[str, Any]) -> None:
            super().__init__()
            self.kind, self.key, self.raw = kind, key, raw

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state: Any = None
        self._records: list[Any] = []
        self._listed = False  # the list shows self.state's calls

    def compose(self) -> ComposeResult:
        yield OptionList(id="history-list")
        with VerticalScroll(id="history-detail"):
            with Horizontal(id="history-actions"):
                yield Button("Run again", id="history-run", variant="primary", compact=True, disabled=True)
            yield Static("", id="history-shown")

    def show_server(self, state: Any | None) -> None:
        """Show `state`'s calls: from the store (in a worker) when there is one, else from memory."""
        changed = state is not self.state
        self.state = state
        if changed:
            self._listed = False
        if state is not None and _store_of(self.app) is not None:
            self.run_worker(self._load_shown, group="mcp-history", exclusive=True, exit_on_error=False)
            return
        records = list(reversed(state.inspection.history)) if state is not None else []
        if not self._listed or len(records) != len(self._records):
            self._list(records)

    async def _load_shown(self) -> None:
        """Read the shown server's calls from the store (the newest request wins: `exclusive`)."""
        state = self.state
        if state is None:
            return
        stored = await load_calls(self.app, state.name)
        if state is not self.state:
            return
        records = list(reversed(stored if stored is not None else state.inspection.history))
        if not self._listed or [(r.at, r.key) for r in records] != [(r.at, r.key) for r in self._records]:
            self._list(records)

    def _list(self, records: list[CallRecord]) -> None:
        options = self.query_one(OptionList)
        self._records, self._listed = records, True
        options.clear_options()
        for record in records:
            label = Text("✔ " if record.ok else "✖ ", style="green" if record.ok else "red")
            label.append(f"{KIND_WORDS.get(record.kind, record.kind)} ", style="dim")
            label.append(record.label, style="bold")
            label.append(time.strftime("\n  %H:%M:%S", time.localtime(record.at)) + f"  {record.elapsed_ms:.0f} ms",
                         style="dim")
            options.add_option(Option(label))
        if not records:
            options.add_option(Option(Text("No calls yet: what you call, read or get by hand is listed here.",
                                           style="dim italic"), disabled=True))
            self._show(None)
        else:
            options.highlighted = 0  # the newest call
            self._show(records[0])

    @on(OptionList.OptionHighlighted, "#history-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        index = event.option_index
        self._show(self._records[index] if 0 <= index < len(self._records) else None)

    @on(OptionList.OptionSelected, "#history-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.run_again(event.option_index)

    @on(Button.Pressed, "#history-run")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        index = self.query_one(OptionList).highlighted
        if index is not None:
            self.run_again(index)

    def run_again(self, index: int) -> None:
        if 0 <= index < len(self._records):
            record = self._records[index]
            self.post_message(self.RunAgain(record.kind, record.key, record.raw))

    def _show(self, record: Any | None) -> None:
        self.query_one("#history-run", Button).disabled = record is None
        shown = self.query_one("#history-shown", Static)
        if record is None:
            shown.update("")
            return
        try:
            arguments: Any = pretty_json(json.loads(json.dumps(record.arguments, default=str)))
        except (TypeError, ValueError):
            arguments = Text(repr(record.arguments))
        parts = [Text(f"{KIND_WORDS.get(record.kind, record.kind)} {record.label}", style="bold"),
                 Text("── arguments", style="bold cyan"), arguments if record.arguments else Text("(none)", style="dim"),
                 Text("── answer", style="bold cyan")]
        if record.shown is not None:
            parts.append(record.shown)
        elif record.answer is not None:
            parts.append(render_answer(record.kind, record.answer, record.elapsed_ms))
        shown.update(Group(*parts))
