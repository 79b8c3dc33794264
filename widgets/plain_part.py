"""A piece of a reply shown as plain text: the rest of a block too long to render as Markdown.

Textual's Markdown parses a block again on every append, so a block that keeps growing (one huge
paragraph, code block or table; see widgets/markdown_split.py) would cost more on every update.
Past PLAIN_CHARS it goes on in these widgets instead, each holding at most PLAIN_CHUNK characters,
so an update costs the size of one chunk. The first one of a block says so in a dim line.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from widgets import markdown_split

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


class PlainPart(Static):
    """Plain text of a reply, appended to as it streams; `source` is the text as received."""

    DEFAULT_CSS = """
    PlainPart { height: auto; margin: 0; padding: 0 1; }
    PlainPart.-closed { margin-bottom: 1; }
    """

    def __init__(self, source: str = "", classes: str = PLAIN_CLASSES) -> None:
        super().__init__(markup=False, classes=classes)
        self.source = ""
        if source:
            self._extend(source)

    async def append(self, text: str) -> None:
        """Add streamed text (awaitable, like `Markdown.append`)."""
        self._extend(text)

    def _extend(self, text: str) -> None:
        self.source += text
        body = Content(self.source.rstrip("\n"))
        if self.has_class(NOTED):
            body = Content.assemble((note(), "dim italic"), "\n", body)
        self.set_class(self.source.endswith("\n\n"), CLOSED)
        self.update(body)
