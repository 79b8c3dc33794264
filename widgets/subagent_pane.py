"""A sub-agent (task/plan) watched in a split pane of its own (a leaf of the layout, beside its
parent's): everything it did so far (its prompt, tool calls, approvals, their output and results, its
streamed text), then live as it goes. Closing the pane only stops the watching; the sub-agent runs on.

The parent's view keeps each sub-agent's events (`SubagentRuns`), so a pane opened late replays them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from app.engine.layout import subagent_leaf
from app.vocabulary.inert import inert
from widgets.subagent_log import ICONS

if TYPE_CHECKING:
    from textual.widgets import RichLog

MAX_EVENTS = 20_000  # per sub-agent; streamed text is merged, so this is many tool calls
RESULT_LINES = 8


class SubagentRuns:
    """Every sub-agent event one workstream's view has seen, by sub-agent name, in order."""

    def __init__(self) -> None:
        self.events: dict[str, list[Any]] = {}

    def add(self, agent: str, event: Any) -> None:
        from app.engine import events as ev

        kept = self.events.setdefault(agent, [])
        if isinstance(event, ev.ContentDelta) and kept and isinstance(kept[-1], ev.ContentDelta):
            kept[-1] = ev.ContentDelta(kept[-1].text + event.text)  # one piece per reply, not per token
        elif len(kept) < MAX_EVENTS:
            kept.append(event)

    def pick(self, name: str) -> str | None:
        """The sub-agent called `name`, or with no name the newest one; None when there is none."""
        if not name:
            return next(reversed(self.events), None)
        return name if name in self.events else None


class SubagentPane(Vertical):
    """One sub-agent's whole log, live, placed by the pane area like a workstream's view (its leaf:
    `layout.subagent_leaf`). F8 while it has the keyboard, or `/subagent close`, closes it."""

    DEFAULT_CSS = """
    SubagentPane { position: absolute; width: 100%; height: 100%; border-left: heavy $accent; }
    SubagentPane .subagent-pane-title { height: 1; padding: 0 1; background: $accent 30%; }
    SubagentPane RichLog { height: 1fr; padding: 0 1; background: $surface; }
    SubagentPane .subagent-pane-partial { height: auto; max-height: 6; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, parent_id: str, agent: str, parent_name: str = "") -> None:
        super().__init__(classes="subagent-pane")
        self.parent_id = parent_id
        self.parent_name = parent_name
        self.agent = agent
        self.leaf = subagent_leaf(parent_id, agent)
        self.state = "running"
        self.partial = ""  # the streamed line not finished yet
        self.names: dict[str, str] = {}  # call id -> tool name

    def compose(self) -> ComposeResult:
        from textual.widgets import RichLog  # with its rich.pretty and attrs (~1 MB): only once a pane opens

        yield Static(self._title(), classes="subagent-pane-title", markup=False)
        yield RichLog(wrap=True, markup=False, highlight=False, id="subagent-pane-log")
        yield Static("", classes="subagent-pane-partial", markup=False)

    def _title(self) -> Text:
        text = Text()
        text.append(f" {self.agent}", style="bold")
        text.append(f"  ● {self.state}", style="italic")
        text.append("  sub-agent" + (f" of {inert(self.parent_name, multiline=False)}" if self.parent_name else ""))
        text.append("   F8 here or /subagent close: hide it (it runs on)", style="dim")
        return text

    @property
    def log(self) -> RichLog:
        """The pane's RichLog."""
        return self.query_one("#subagent-pane-log")

    def replay(self, events: list[Any]) -> None:
        for event in events:
            self.apply(event)

    def apply(self, event: Any) -> None:
        """Show one of the sub-agent's events."""
        from app.engine import events as ev

        match event:
            case ev.UserMessageAdded(text=text):
                self._write(Text("▸ " + inert(text), style="bold"))
            case ev.AssistantStarted() | ev.AssistantFinished():
                self._flush()
            case ev.ContentDelta(text=text):
                self._stream(text)
            case ev.ToolCallAdded():
                self._flush()
                self.names[event.call_id] = event.name
                self._write(Text(f"{ICONS['pending']} {inert(event.name, multiline=False)}  "
                                 f"{inert(' '.join(event.preview.split()), multiline=False)[:160]}"))
            case ev.ApprovalRequested(items=items):
                for item in items:
                    self._write(Text(f"  ⚑ waiting for your approval: {inert(item.name, multiline=False)}",
                                     style="bold magenta"))
            case ev.ToolCallUpdated(call_id=call_id):
                name = self.names.get(call_id, "tool")
                self._write(Text(f"  {ICONS.get(event.status, '?')} {inert(name, multiline=False)} {event.status}"
                                 + (f": {inert(event.detail, multiline=False)}" if event.detail else ""),
                                 style="dim"))
            case ev.ToolOutput(text=text):
                for line in text.splitlines():
                    self._write(Text("  │ " + inert(line, multiline=False), style="dim"))
            case ev.ToolResultReady(output=output, is_error=is_error):
                lines = output.splitlines() or [""]
                shown = lines[:RESULT_LINES] + ([f"… {len(lines) - RESULT_LINES} more line(s)"]
                                                if len(lines) > RESULT_LINES else [])
                for line in shown:
                    self._write(Text("  → " + inert(line, multiline=False), style="red" if is_error else ""))
            case ev.StateChanged(state=state):
                self._set_state(state)
            case ev.TurnFinished(outcome=outcome):
                self._flush()
                self._set_state({"done": "finished", "cancelled": "cancelled"}.get(outcome, "failed"))

    def _set_state(self, state: str) -> None:
        self.state = state
        if self.is_mounted:
            self.query_one(".subagent-pane-title", Static).update(self._title())

    def _stream(self, text: str) -> None:
        self.partial += text
        *done, self.partial = self.partial.split("\n")
        for line in done:
            self._write(Text(inert(line, multiline=False)))
        self._show_partial()

    def _flush(self) -> None:
        if self.partial:
            self._write(Text(inert(self.partial, multiline=False)))
            self.partial = ""
        self._show_partial()

    def _show_partial(self) -> None:
        if self.is_mounted:
            self.query_one(".subagent-pane-partial", Static).update(Text(inert(self.partial, multiline=False)))

    def _write(self, line: Text) -> None:
        self.log.write(line)
