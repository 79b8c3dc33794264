"""How streamed Markdown is fed to Textual's Markdown widgets so it looks as if parsed whole.

A long reply is shown as several Markdown widgets so that each frame lays out only the part still
growing (see `AssistantMessage`). A cut is safe at a blank line outside a fenced code block when the
next line starts a plain paragraph (a letter at column 0): the blocks before it are closed, and a
paragraph has no top margin, so the spacing is the same as in one widget.

`Markdown.append` re-parses from the start of the last block only, so a fragment that ends in a
bare block marker ("2" after a list, "|--" under a table header) would become a block of its own and
split the list or table for good; such a trailing marker is held back until its line goes on.
"""

from __future__ import annotations

import re

FENCES = ("```", "~~~")
MARKER_ONLY = re.compile(r"[ \t]*[-*+#>|`~=:.)0-9]+[ \t]*")  # a line so far that is nothing but a block marker


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


def safe_cut(text: str, start: int = 0) -> int | None:
    """The last offset >= `start` where `text` may be cut (the next part begins there), or None.

    The whole of `text` is scanned for code fences, so `start` only limits where a cut may fall.
    """
    best: int | None = None
    fence: str | None = None  # the open fence, while inside a code block
    previous_blank = False
    offset = 0
    for line in text.splitlines(keepends=True):
        marker = _fence(line)
        if fence is None:
            if previous_blank and offset >= start and line[:1].isalpha():
                best = offset
            if marker is not None:
                fence = marker
        elif marker is not None and marker[0] == fence[0] and len(marker) >= len(fence) \
                and not line.strip()[len(marker):]:
            fence = None
        previous_blank = not line.strip()
        offset += len(line)
    return best
