"""Head + tail truncation of tool output, so both the start and the end (errors, exit codes) survive."""

from __future__ import annotations


def omission_marker(omitted: int) -> str:
    """The line that replaces the middle of a truncated text."""
    return f"\n… [{omitted:,} characters omitted] …\n"


def truncate(text: str, limit: int) -> str:
    """Keep about `limit` characters: the first and last parts, with a marker saying how much went."""
    if limit <= 0 or len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    return text[:head] + omission_marker(len(text) - head - tail) + text[-tail:]


class HeadTailBuffer:
    """Collects streamed text in bounded memory: the first `limit` and the last `limit` characters."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 1)
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self._omitted = 0

    def append(self, text: str) -> None:
        """Add a chunk; anything beyond the head is kept only while it is among the last `limit` chars."""
        room = self.limit - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if not text:
            return
        self._tail += text
        excess = len(self._tail) - self.limit
        if excess > 0:
            self._omitted += excess
            self._tail = self._tail[excess:]

    def text(self) -> str:
        """Everything kept, with a marker where the middle was dropped."""
        head = "".join(self._head)
        if self._omitted:
            return head + omission_marker(self._omitted) + self._tail
        return head + self._tail
