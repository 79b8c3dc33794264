"""The text of a reply as it streams: appended in tokens, kept as one string grown in place.

A Python string costs about 50 bytes besides its characters, so a reply kept as a list of its
tokens (often four characters each) takes many times its size; a 10 MB reply was tens of MB of
small strings. `TextParts` joins its newest pieces onto one string every CHUNK
characters, growing it in place (CPython resizes a string that only one name refers to, instead of
copying it), so it holds the text's own size once: `text()` hands out that string itself rather
than joining a copy of chunks at the end of a reply, when chunks and copy were both alive.
`since(offset)` hands out what came after an offset (the draft saves of app/engine/reply_draft.py).
"""

from __future__ import annotations

CHUNK = 64 * 1024  # characters of small pieces joined onto the text at a time


class TextParts:
    """Streamed text: `append` pieces, `text()` for all of it, `since(offset)` for its tail."""

    def __init__(self) -> None:
        self._text = ""  # the pieces joined so far
        self._tail: list[str] = []  # pieces since the last join
        self._tail_size = 0
        self.size = 0  # characters so far

    def append(self, piece: str) -> None:
        self._tail.append(piece)
        self._tail_size += len(piece)
        self.size += len(piece)
        if self._tail_size >= CHUNK:
            self._join_tail()

    def _join_tail(self) -> None:
        """Add the pending pieces to the text (in place while nothing else holds the text)."""
        if not self._tail:
            return
        grown, self._text = self._text, ""
        grown += "".join(self._tail)  # `grown` is its only name here: resized, not copied
        self._text = grown
        self._tail, self._tail_size = [], 0

    def __bool__(self) -> bool:
        return self.size > 0

    def text(self) -> str:
        """All the text so far (the string itself: no copy is made)."""
        self._join_tail()
        return self._text

    def since(self, offset: int) -> str:
        """The text after its first `offset` characters."""
        if offset >= self.size:
            return ""
        joined = len(self._text)
        if offset >= joined:
            return "".join(self._tail)[offset - joined:]
        return self._text[offset:] + "".join(self._tail)
