"""One line at the bottom for the focused workstream: model, state, tokens against the context window."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

STATE_STYLES = {
    "idle": "green", "thinking": "yellow", "running": "cyan", "attention": "bold magenta", "error": "bold red",
}


def format_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class StatusBar(Static):
    model: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    tokens: reactive[int] = reactive(0)
    context_window: reactive[int | None] = reactive(None)

    def show(self, workstream) -> None:
        """Mirror the focused workstream."""
        self.model = workstream.model
        self.state = workstream.state
        self.tokens = workstream.tokens
        self.context_window = workstream.context_window

    def render(self) -> Text:
        text = Text()
        text.append(" ◆ ", style="bold")
        text.append(self.model or "no model", style="bold" if self.model else "dim")
        text.append("  │  ")
        text.append(f"● {self.state}", style=STATE_STYLES.get(self.state, ""))
        text.append("  │  ")
        if self.context_window:
            pct = 100 * self.tokens / self.context_window
            text.append(f"{format_tokens(self.tokens)} / {format_tokens(self.context_window)} tokens ({pct:.0f}%)")
        else:
            text.append(f"{format_tokens(self.tokens)} tokens")
        return text
