"""Parts of a long streamed reply that are far above the view, kept as text instead of widgets.

A reply of a few hundred kilobytes becomes thousands of Markdown block widgets. Textual lays out
every widget of the transcript on each frame and the garbage collector walks all of their objects,
so both grow with the reply, and so does the wait of every keystroke behind them. Parts of the
reply (the Markdown widgets it is split into while streaming) that are more than a few screens
above the view are therefore replaced by one `DormantParts` of the same height that keeps only
their sources; scrolling near it renders them again (`Transcript.settle_parts`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.widget import Widget

from widgets.textual_internals import without_dirty_lines


@dataclass
class PartSource:
    """What a dormant part needs to be rendered again: its Markdown, CSS classes and height."""

    source: str
    classes: str
    height: int


class DormantParts(Widget):
    """A blank stand-in, exactly as tall as the parts it holds."""

    DEFAULT_CSS = "DormantParts { height: auto; margin: 0; padding: 0; }"

    def __init__(self, parts: list[PartSource], message_index: int) -> None:
        super().__init__(classes="dormant-parts")
        self.parts = parts
        self.message_index = message_index
        self.styles.height = sum(part.height for part in parts)
        without_dirty_lines(self)  # as tall as the reply: a set of its dirty lines would cost more than its text

    def render(self) -> str:
        return ""


def wake(parts: list[PartSource], message_index: int) -> list[Widget]:
    """Widgets for dormant parts, Markdown or plain text as they were (rendered when mounted)."""
    from widgets.plain_part import PlainPart
    from widgets.reply_markdown import ReplyMarkdown

    widgets: list[Widget] = []
    for part in parts:
        kind = PlainPart if "assistant-plain" in part.classes.split() else ReplyMarkdown
        widget = kind(part.source, classes=part.classes)
        widget.message_index = message_index  # type: ignore[attr-defined]
        widgets.append(widget)
    return widgets
