"""One line at the bottom for the focused workstream: model, state, context gauge, cost, breaker."""

from __future__ import annotations

import math

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from widgets.permission_marker import permission_marker
from widgets.tool_mode_marker import tool_mode_marker

STATE_STYLES = {
    "idle": "green", "thinking": "yellow", "running": "cyan", "attention": "bold magenta", "error": "bold red",
}
GAUGE_CELLS = 10


def format_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def format_chars(n: int) -> str:
    """A count of characters as a size: 812 characters, 45 KB, 3.2 MB."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    return f"{n // 1000} KB" if n >= 1000 else f"{n} characters"


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
    """Mirrors the focused workstream; `show()` is called whenever its facts change.

    While the model's circuit breaker is not closed, a timer redraws the bar each second: the
    "retry in Ns" counts down, and a breaker closed by another workstream's request disappears.
    """

    DEFAULT_CSS = "StatusBar { text-wrap: nowrap; text-overflow: ellipsis; }"  # one line, cut at the end

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model = ""
        self.state = "idle"
        self.tokens = 0
        self.context_window: int | None = None
        self.cost: float | None = None
        self.cost_estimated = False
        self.breaker: tuple[str, str, float] | None = None  # (backend, state, retry_in) while not closed
        self._workstream = None
        self._ticker: Timer | None = None
        self.permission: Text | None = None  # mode and sandbox marker (widgets/permission_marker.py)
        self.tool_mode: Text | None = None
        self.drawing = 0  # characters of an ended reply the screen has still to draw (the user is typing)

    def show(self, workstream) -> None:
        self.model = workstream.model
        self.state = workstream.state
        self.tokens = workstream.tokens
        self.context_window = workstream.context_window
        self.cost, self.cost_estimated = workstream.cost, workstream.cost_estimated
        self._workstream = workstream
        self.permission = permission_marker(workstream)
        self.tool_mode = tool_mode_marker(workstream)  # code mode; None in native
        self._tick()

    def retry_in(self) -> int:
        """Whole seconds until an open breaker lets a trial through (0: not open, or due now)."""
        if self.breaker is None or self.breaker[1] != "open":
            return 0
        return max(0, math.ceil(self.breaker[2]))

    def _tick(self) -> None:
        """Read the breaker and redraw; while it is not closed, again each second."""
        self.breaker = self._workstream.breaker_view() if self._workstream is not None else None
        self.update(self.describe())
        counting = self.breaker is not None
        if counting and self._ticker is None:
            self._ticker = self.set_interval(1.0, self._tick)
        elif not counting and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def describe(self) -> Text:
        from app.providers.pricing import format_cost

        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" ◆ ", style="bold")
        text.append(self.model or "no model", style="bold" if self.model else "dim")
        text.append("  │  ")
        text.append(f"● {self.state}", style=STATE_STYLES.get(self.state, ""))
        if self.drawing:  # idle, but the screen is behind: the end of the reply is not on it yet
            text.append(f" · {format_chars(self.drawing)} of the reply still to draw: pause typing to see it",
                        style="yellow")
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
        if self.permission is not None:
            text.append("  │  ")
            text.append_text(self.permission)
        if self.tool_mode is not None:
            text.append("  │  ")
            text.append_text(self.tool_mode)
        if self.breaker is not None:
            backend = self.breaker[0]
            seconds = self.retry_in()
            text.append("  │  ")
            if seconds:  # what matters first: a narrow terminal cuts the end of the line
                text.append(f"⚡ circuit open, retry in {seconds}s ({backend})", style="bold red")
            else:  # the cooldown is over (the breaker turns half-open when next asked)
                text.append(f"⚡ circuit half-open: next request tries it ({backend})", style="bold yellow")
        return text
