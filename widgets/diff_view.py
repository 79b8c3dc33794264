"""A coloured unified diff."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def render_diff(diff: str) -> Text:
    """Colour each diff line by its prefix."""
    text = Text()
    for line in diff.splitlines():
        style = next((s for prefix, s in _STYLES if line.startswith(prefix)), "")
        text.append(line + "\n", style=style)
    text.rstrip()
    return text


class DiffView(Static):
    def __init__(self, diff: str, **kwargs) -> None:
        super().__init__(render_diff(diff), **kwargs)
        self.add_class("diff-view")
