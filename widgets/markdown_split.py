"""How streamed Markdown is fed to Textual's Markdown widgets so it looks as if parsed whole.

A long reply is shown as several Markdown widgets so that each frame lays out only the part still
growing (see `AssistantMessage`). A cut is safe at a blank line outside a fenced code block when the
next line starts a plain paragraph (a letter at column 0): the blocks before it are closed, and a
paragraph has no top margin, so the spacing is the same as in one widget.

Cuts are found as the text arrives (`CutScanner`): each character is looked at once, so the cost of
an update is the size of the update, not of the reply. A part that grows past PLAIN_CHARS without a
safe cut (one huge paragraph, code block, list or table) is closed there, and the rest of that block
is shown as plain text in PLAIN_CHUNK pieces until the next safe cut (`PartSplitter`): Textual's
Markdown re-parses its last block on every append, so such a block would cost more on every update.

`Markdown.append` re-parses from the start of the last block only, so a fragment that ends in a
bare block marker ("2" after a list, "|--" under a table header) would become a block of its own and
split the list or table for good; such a trailing marker is held back until its line goes on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

FENCES = ("```", "~~~")
MARKER_ONLY = re.compile(r"[ \t]*[-*+#>|`~=:.)0-9]+[ \t]*")  # a line so far that is nothing but a block marker
PART_CHARS = 8000  # a streamed part is closed at the first safe cut after this many characters: each part is
# a widget with its own styles, message queue and caches, garbage once put to sleep (a full collection away);
# at 2000 a reply of ordinary paragraphs made a part for every two of them, 3 MB of such garbage a MB of reply
PLAIN_CHARS = 16384  # ... and a part with no safe cut for this long goes on as plain text
PLAIN_CHUNK = 262144  # plain text is shown in widgets of at most this many characters (widgets/plain_part.py):
# each widget mounted and put to sleep leaves garbage (its styles, caches, message queue) that waits for a full
# collection while the reply streams; at 64K a 10 MB reply made 150 of them, ~2-3 MB more at its peak

Kind = Literal["markdown", "plain"]


def held_back(text: str) -> tuple[str, str]:
    """(what to append now, what to hold): a trailing partial line that is only a marker is held."""
    start = text.rfind("\n") + 1
    if start < len(text) and MARKER_ONLY.fullmatch(text, start):
        return text[:start], text[start:]
    return text, ""


def _fence(line: str) -> str | None:
    """The fence marker (``` or ~~~ run) that opens or closes a code block on `line`, if any."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith(FENCES):
        return None
    char = stripped[0]
    return stripped[: len(stripped) - len(stripped.lstrip(char))]


class CutScanner:
    """Finds safe cuts in text fed piece by piece; offsets count from the start of all text fed.

    Of each line only its first LINE_HEAD characters are kept, and whether anything after them is
    not blank: that tells a fence, a closing fence and a blank line apart, whatever the line's length."""

    LINE_HEAD = 80

    def __init__(self) -> None:
        self.offset = 0  # characters fed so far
        self._line = ""  # the start of the line being fed, until its newline arrives
        self._spill = False  # that line has more than blanks after its first LINE_HEAD characters
        self._fence: str | None = None  # the open fence, while inside a code block
        self._previous_blank = False  # the line before the current one was blank

    def feed(self, text: str) -> list[int]:
        """The safe cuts that `text` makes known, in order (each is where a new part may begin)."""
        cuts: list[int] = []
        position = 0
        while position < len(text):
            end = text.find("\n", position)
            end = len(text) if end < 0 else end + 1
            if not self._line and self._fence is None and self._previous_blank and text[position].isalpha():
                cuts.append(self.offset + position)
            head_end = min(end, position + max(0, self.LINE_HEAD - len(self._line)))
            self._line += text[position:head_end]
            if not self._spill and head_end < end:
                self._spill = bool(text[head_end:end].strip())
            if text[end - 1] == "\n":
                self._end_line(self._line + ("x" if self._spill else ""))
            position = end
        self.offset += len(text)
        return cuts

    def _end_line(self, line: str) -> None:
        """A whole line is in: it may open or close a code block, and it may be blank."""
        self._line, self._spill = "", False
        marker = _fence(line)
        if self._fence is None:
            self._fence = marker
        elif marker is not None and marker[0] == self._fence[0] and len(marker) >= len(self._fence) \
                and not line.strip()[len(marker):]:
            self._fence = None
        self._previous_blank = not line.strip()


def safe_cut(text: str, start: int = 0) -> int | None:
    """The last offset >= `start` where `text` may be cut (the next part begins there), or None.

    The whole of `text` is scanned for code fences, so `start` only limits where a cut may fall.
    """
    cuts = [cut for cut in CutScanner().feed(text) if cut >= start]
    return cuts[-1] if cuts else None


@dataclass
class Step:
    """Append `text` to the live part, after opening a new part of `kind` if `new`.

    `noted` marks the first plain part of a block: it says that the block is shown as plain text."""

    text: str
    kind: Kind = "markdown"
    new: bool = False
    noted: bool = False


def _break_before(text: str, limit: int) -> int:
    """Where to end a piece of at most `limit` characters of `text`: after its last newline, else
    after its last space, else at `limit` (one endless word)."""
    for separator in ("\n", " "):
        found = text.rfind(separator, 0, limit)
        if found >= 0:
            return found + 1
    return limit


class PartSplitter:
    """Decides, as text streams in, which part each piece goes to: the live Markdown part, a new
    one at a safe cut, or plain-text parts for a block that grew past PLAIN_CHARS.

    The scanner is fed exactly the text that has been placed, so each character is scanned once
    (twice at most, when a cut hands the rest of an update to a new part)."""

    def __init__(self) -> None:
        self.kind: Kind = "markdown"  # what the live part is
        self.chars = 0  # characters in the live part
        self._scanner = CutScanner()  # over the text since the live Markdown part began

    def feed(self, text: str) -> list[Step]:
        """The steps that show `text`, in order."""
        steps: list[Step] = []
        while text:
            text = self._step(text, steps)
        return steps

    def _step(self, text: str, steps: list[Step]) -> str:
        """Add to `steps` what goes into the live part (and the opening of the next); the rest of `text`."""
        limit = PLAIN_CHARS - self._scanner.offset if self.kind == "markdown" else PLAIN_CHUNK - self.chars
        take = len(text) if len(text) <= limit else _break_before(text, limit) if limit > 0 else 0
        before = self._scanner.offset
        cuts = self._scanner.feed(text[:take])
        if self.kind == "markdown":  # long enough to close, or too long to stay Markdown: a new part
            cuts = [cut for cut in cuts if cut >= PART_CHARS] or (cuts[-1:] if take < len(text) else [])
        if cuts:  # the live part ends here; a new Markdown part takes the rest
            self._append(text[:cuts[0] - before], steps)
            self._scanner = CutScanner()
            return self._open(text[cuts[0] - before:], "markdown", steps)
        self._append(text[:take], steps)
        if take == len(text):
            return ""
        return self._open(text[take:], "plain", steps, noted=self.kind == "markdown")

    def _open(self, rest: str, kind: Kind, steps: list[Step], noted: bool = False) -> str:
        """A new part of `kind` takes `rest` (returned, to be placed next)."""
        if steps and steps[-1].new and not steps[-1].text:
            steps.pop()  # the part opened last got nothing: this one replaces it
        steps.append(Step("", kind, new=True, noted=noted))
        self.kind, self.chars = kind, 0
        return rest

    def _append(self, text: str, steps: list[Step]) -> None:
        """`text` goes into the live part (into the step that opened it, if it is still empty)."""
        if not text:
            return
        if steps and not steps[-1].text:
            steps[-1].text = text
        else:
            steps.append(Step(text, self.kind))
        self.chars += len(text)
