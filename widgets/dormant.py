"""Parts of a long streamed reply that are far above the view, kept as text instead of widgets.

A reply of a few hundred kilobytes becomes thousands of Markdown block widgets. Textual lays out
every widget of the transcript on each frame and the garbage collector walks all of their objects,
so both grow with the reply, and so does the wait of every keystroke behind them. Parts of the
reply (the Markdown widgets it is split into while streaming) that are more than a few screens
above the view are therefore replaced by one `DormantParts` of the same height that keeps only
their sources; scrolling near it renders them again (`Transcript.settle_parts`).

A part's source is not kept as a copy when the reply's whole text can be read (`reply_text` of its
AssistantMessage: the engine's own string of the reply): the dormant part keeps where its text lies
in it and slices it out when woken, so a 10 MB reply is held once, by the engine, not twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from textual.widget import Widget

from widgets.textual_internals import without_dirty_lines


@dataclass
class PartSource:
    """What a dormant part needs to be rendered again: its Markdown, CSS classes and height.

    Its text is `text` (its own copy) or, when `reply` is set, `length` characters of the reply's
    text from `start` (read again each time it is needed)."""

    text: str
    classes: str
    height: int
    start: int | None = None  # where the text begins in the reply's text, when known
    reply: Callable[[], str] | None = None
    length: int = 0

    @property
    def source(self) -> str:
        if self.reply is None:
            return self.text
        return self.reply()[self.start:self.start + self.length]


def part_source(widget: Widget, classes: str, height: int, reply: Callable[[], str] | None) -> PartSource:
    """A dormant `widget`'s PartSource: a span of `reply()` when its source is there at its offset
    (checked, not copied: `startswith` at the offset), else a copy of its source."""
    source = widget.source
    start = getattr(widget, "reply_offset", None)
    if reply is not None and start is not None and source and reply().startswith(source, start):
        return PartSource("", classes, height, start, reply, len(source))
    return PartSource(source, classes, height, start)


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
        if part.start is not None:
            widget.reply_offset = part.start  # type: ignore[attr-defined]  # so it can go dormant by reference again
        widgets.append(widget)
    return widgets
