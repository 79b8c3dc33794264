"""One line at the bottom for the focused workstream: model, state, context gauge, cost, breaker."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

STATE_STYLES = {
    "idle": "green", "thinking": "yellow", "running": "cyan", "attention": "bold magenta", "error": "bold red",
}
GAUGE_CELLS = 10


def format_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def gauge(used: int, window: int) -> Text:
    """`▰▰▰▱▱▱▱▱▱▱ 31%`: green below 60 %, yellow below 85 %, then red (compaction is near)."""
    fraction = min(1.0, used / window) if window else 0.0
    filled = round(fraction * GAUGE_CELLS)
    style = "green" if fraction < 0.6 else ("yellow" if fraction < 0.85 else "bold red")
    text = Text()
    text.append("▰" * filled, style=style)
    text.append("▱" * (GAUGE_CELLS - filled), style="dim")
    text.append(f" {fraction * 100:.0f}%", style=style)
    return text


class StatusBar(Static):
    """Mirrors the focused workstream; `show()` is called whenever its facts change."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model = ""
        self.state = "idle"
        self.tokens = 0
        self.context_window: int | None = None
        self.cost: float | None = None
        self.cost_estimated = False
        self.breaker: tuple[str, str, float] | None = None

    def show(self, workstream) -> None:
        self.model = workstream.model
        self.state = workstream.state
        self.tokens = workstream.tokens
        self.context_window = workstream.context_window
        self.cost, self.cost_estimated = workstream.cost, workstream.cost_estimated
        self.breaker = workstream.breaker
        self.update(self.describe())

    def describe(self) -> Text:
        from app.providers.pricing import format_cost

        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" ◆ ", style="bold")
        text.append(self.model or "no model", style="bold" if self.model else "dim")
        text.append("  │  ")
        text.append(f"● {self.state}", style=STATE_STYLES.get(self.state, ""))
        text.append("  │  ")
        if self.context_window:
            text.append(f"{format_tokens(self.tokens)} / {format_tokens(self.context_window)} ")
            text.append_text(gauge(self.tokens, self.context_window))
        else:
            text.append(f"{format_tokens(self.tokens)} tokens")
        if self.cost is not None or self.tokens:
            text.append("  │  ")
            text.append(format_cost(self.cost, self.cost_estimated) if self.cost is not None else "cost —",
                        style="" if self.cost is not None else "dim")
        if self.breaker is not None:
            backend, state, retry_in = self.breaker
            text.append("  │  ")
            when = f", retry in {retry_in:.0f}s" if retry_in else ""
            text.append(f"⚡ {backend} circuit {state}{when}", style="bold red")
        return text
