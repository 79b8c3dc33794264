"""The text of a reply as it streams: appended in tokens, kept in a few large chunks.

A Python string costs about 50 bytes besides its characters, so a reply kept as a list of its
tokens (often four characters each) takes many times its size; a 10 MB reply was tens of MB of
small strings (issue 12). `TextParts` joins its newest pieces into one chunk every CHUNK characters,
so it holds about the text's own size, and hands out what came after a given offset (the draft
saves of app/engine/reply_draft.py) without joining the whole text.
"""

from __future__ import annotations

CHUNK = 64 * 1024  # characters of small pieces joined into one chunk


class TextParts:
    """Streamed text: `append` pieces, `text()` for all of it, `since(offset)` for its tail."""

    def __init__(self) -> None:
        self._chunks: list[str] = []  # joined, in order
        self._tail: list[str] = []  # pieces since the last chunk
        self._tail_size = 0
        self.size = 0  # characters so far

    def append(self, piece: str) -> None:
        self._tail.append(piece)
        self._tail_size += len(piece)
        self.size += len(piece)
        if self._tail_size >= CHUNK:
            self._chunks.append("".join(self._tail))
            self._tail, self._tail_size = [], 0

    def __bool__(self) -> bool:
        return self.size > 0

    def text(self) -> str:
        """All the text so far (one copy)."""
        return "".join(self._chunks + self._tail)

    def since(self, offset: int) -> str:
        """The text after its first `offset` characters."""
        wanted = self.size - offset
        if wanted <= 0:
            return ""
        pieces: list[str] = []
        for piece in reversed(self._chunks + self._tail):  # the newest first, until enough
            if wanted <= 0:
                break
            pieces.append(piece if len(piece) <= wanted else piece[len(piece) - wanted:])
            wanted -= len(piece)
        return "".join(reversed(pieces))
