"""The tab bar: one tab per workstream with its live state."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from widgets.status_bar import STATE_STYLES


class TabBar(Static):
    """Renders `[1 title ●]` tabs; the active one is highlighted."""

    tabs: reactive[tuple[tuple[str, str], ...]] = reactive(())
    active: reactive[int] = reactive(0)

    def render(self) -> Text:
        text = Text(" ")
        for index, (title, state) in enumerate(self.tabs):
            style = "reverse bold" if index == self.active else ""
            text.append(f" {index + 1} {title} ", style=style)
            text.append("●", style=STATE_STYLES.get(state, ""))
            text.append("  ")
        if not self.tabs:
            text.append("whimbrel", style="bold")
        return text
