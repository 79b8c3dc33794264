"""A piece of a reply shown as plain text: the rest of a block too long to render as Markdown.

Textual's Markdown parses a block again on every append, so a block that keeps growing (one huge
paragraph, code block or table; see widgets/markdown_split.py) would cost more on every update.
Past PLAIN_CHARS it goes on in these widgets instead, each holding at most PLAIN_CHUNK characters.
The first one of a block says so in a dim line.

A part keeps its text once and where each of its wrapped lines starts (widgets/plain_wrap.py), and
renders a line only when it is shown: an append re-wraps from the start of the last line, never the
whole part, and nothing per line is kept beyond one offset. A Static kept its whole text a second
time (its Content) and every wrapped line rendered, which made each part of a 10 MB reply cost
several times its text until a full garbage collection freed it.
"""

from __future__ import annotations

from array import array

from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from widgets import markdown_split
from widgets.plain_wrap import TAB, text_end, wrap_starts

PLAIN_CLASSES = "assistant-part assistant-plain"
NOTED = "-noted"  # the class of the first plain part of a block, which carries the note
CLOSED = "-closed"  # the part ends its block with a blank line: a margin keeps the spacing


def note() -> str:
    """The dim line above the plain text of a block."""
    size = markdown_split.PLAIN_CHARS
    told = f"{size // 1024} KB" if size >= 1024 else f"{size} characters"
    return f"⋯ this block is longer than {told}: the rest of it is shown as plain text"


def plain_classes(noted: bool) -> str:
    """The CSS classes of a plain part (kept when it goes dormant, so it wakes as the same kind)."""
    return f"{PLAIN_CLASSES} {NOTED}" if noted else PLAIN_CLASSES


class PlainPart(Widget):
    """Plain text of a reply, appended to as it streams; `source` is the text as received."""

    DEFAULT_CSS = """
    PlainPart { height: auto; margin: 0; padding: 0 1; }
    PlainPart.-closed { margin-bottom: 1; }
    """

    def __init__(self, source: str = "", classes: str = PLAIN_CLASSES) -> None:
        super().__init__(classes=classes)
        self.source = ""
        self._starts = array("I", [0])  # where each wrapped line of the text begins in `source`
        self._width = 0  # the width those lines are wrapped to (0: not wrapped yet)
        if source:
            self._extend(source)

    async def append(self, text: str) -> None:
        """Add streamed text (awaitable, like `Markdown.append`)."""
        self._extend(text)

    def _extend(self, text: str) -> None:
        grown, self.source = self.source, ""
        grown += text  # its only reference is this name: CPython grows it in place instead of copying
        self.source = grown
        self.set_class(grown.endswith("\n\n"), CLOSED)
        lines = len(self._starts)
        if self._width:
            self._wrap(from_line=lines - 1)  # only the last line can change, and lines can follow it
        self.refresh(layout=len(self._starts) != lines or not self._width)

    def release_text(self) -> None:
        """Let the text go now that the part was removed (gone dormant: its PartSource has the text).
        The widget itself can outlive its removal in reference cycles until the next full collection,
        which waits for the app to be idle (app/runtime/idle_gc.py): a 10 MB reply's parts kept it all again."""
        self.source = ""
        self._starts = array("I", [0])
        self._width = 0

    # -- wrapping -----------------------------------------------------------------------------
    @property
    def _noted(self) -> int:
        return 1 if self.has_class(NOTED) else 0

    def _wrap(self, from_line: int = 0, width: int | None = None) -> None:
        """Wrap the text again from the start of line `from_line` (all of it at a new `width`)."""
        if width is not None and width != self._width:
            self._width, from_line = width, 0
        del self._starts[from_line + 1:]
        self._starts.extend(wrap_starts(self.source, self._starts[from_line], max(1, self._width)))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width or not self._width:  # an append at this width has wrapped already
            self._wrap(width=width)
        return len(self._starts) + self._noted if self.source else self._noted

    # -- rendering -----------------------------------------------------------------------------
    def _line_text(self, row: int) -> str:
        """The text of wrapped line `row` as shown (tabs as spaces, no line end or trailing blanks)."""
        if row < self._noted:
            return note()
        index = row - self._noted
        end = self._starts[index + 1] if index + 1 < len(self._starts) else text_end(self.source)
        return self.source[self._starts[index]:end].rstrip("\n").rstrip(" ").replace("\t", TAB)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if width != self._width:
            self._wrap(width=width)
        style = self.visual_style
        if y >= len(self._starts) + self._noted or not (self.source or y < self._noted):
            return Strip.blank(width, style.rich_style)
        content = Content(self._line_text(y))
        if y < self._noted:
            content = content.stylize(Style(dim=True, italic=True))
        selection = self.text_selection
        span = selection.get_span(y) if selection is not None else None
        if span is not None:
            start, end = span
            selected = Style.from_styles(self.screen.get_component_styles("screen--selection"))
            content = content.stylize(selected, start, len(content) if end == -1 else end)
        strip = Strip(content.render_segments(style))
        return strip.crop(0, width).extend_cell_length(width, style.rich_style)

    def get_selection(self, selection):
        """The selected text, read from the wrapped lines as shown (a row per line)."""
        rows = len(self._starts) + self._noted if self.source else self._noted
        return selection.extract("\n".join(self._line_text(row) for row in range(rows))), "\n"
