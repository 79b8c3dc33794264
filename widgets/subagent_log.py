"""A sub-agent's progress nested in its parent's tool card: one block per sub-agent with its tool
calls (and their status) and the tail of the text it is streaming. Hidden until the first event."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.widgets import Static

from app.vocabulary.inert import inert

ICONS = {"pending": "○", "approved": "✔", "denied": "✖", "running": "◐", "done": "●", "error": "✖"}
TAIL_LINES = 3


@dataclass
class AgentProgress:
    """What the log shows of one sub-agent."""

    state: str = "thinking"
    calls: dict[str, list[str]] = field(default_factory=dict)  # call id -> [name, preview, status]
    text: str = ""

    def apply(self, event: Any) -> None:
        from app.engine import events as ev  # with the first event, not at startup

        match event:
            case ev.StateChanged(state=state):
                self.state = state
            case ev.AssistantStarted():
                self.text = ""
            case ev.ContentDelta(text=text):
                self.text += text
            case ev.ToolCallAdded():
                self.calls[event.call_id] = [event.name, " ".join(event.preview.split())[:70], "pending"]
            case ev.ToolCallUpdated(call_id=call_id) if call_id in self.calls:
                self.calls[call_id][2] = event.status
            case ev.TurnFinished(outcome=outcome):
                self.state = {"done": "finished", "cancelled": "cancelled"}.get(outcome, "failed")


class SubagentLog(Static):
    """Every sub-agent of one tool call, updated in place."""

    DEFAULT_CSS = """
    SubagentLog { display: none; padding: 0 1; color: $text-muted; }
    SubagentLog.-active { display: block; }
    """

    def __init__(self) -> None:
        super().__init__("", markup=False, classes="subagent-log")
        self.agents: dict[str, AgentProgress] = {}

    def apply(self, agent: str, event: Any) -> None:
        self.agents.setdefault(agent, AgentProgress()).apply(event)
        self.add_class("-active")
        self.update(self.render_agents())

    def render_agents(self) -> Text:
        text = Text()
        for name, progress in self.agents.items():
            if text:
                text.append("\n")
            text.append(f"┌ {name}", style="bold")
            text.append(f"  {progress.state}\n", style="italic")
            for tool, preview, status in progress.calls.values():
                text.append(f"│ {ICONS.get(status, '?')} {inert(tool, multiline=False)}  "
                            f"{inert(preview, multiline=False)}  [{status}]\n")
            tail = [line for line in progress.text.strip().splitlines() if line.strip()][-TAIL_LINES:]
            for line in tail:
                text.append(f"│ {inert(line, multiline=False)[:100]}\n", style="dim")
            text.append("└")
        return text
