"""Where plain text wraps at a width: the offset each wrapped line starts at, found greedily.

A line takes words while they fit and breaks after the last blank that fits (a word longer than the
width is cut). Greedy wrapping never looks ahead, so appending text can only change the last line
and add new ones: widgets/plain_part.py wraps again from the start of its last line on each append.

Widths are those shown: a tab is TAB, a control character is one visible glyph (the inert text of
app/vocabulary/inert.py), wide characters take two cells. Plain ASCII, the usual case, is wrapped
with `str.rfind` alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rich.cells import cell_len
from textual.content import Content

TAB = "    "  # a tab is shown as this
SPECIAL = re.compile(r"[^\x20-\x7e]")  # anything but printable ASCII needs its width looked up


def text_end(text: str) -> int:
    """Where the shown text ends: trailing line ends (a closed block's blank line) are not shown."""
    end = len(text)
    while end and text[end - 1] == "\n":
        end -= 1
    return end


def wrap_starts(text: str, start: int, width: int) -> list[int]:
    """The offsets where the wrapped lines after the one beginning at `start` begin, to the text's end."""
    starts: list[int] = []
    end = text_end(text)
    position = start
    while True:
        newline = text.find("\n", position, end)
        line_end = end if newline < 0 else newline
        if SPECIAL.search(text, position, line_end):
            _wrap_measured(text, position, line_end, width, starts)
        else:
            _wrap_ascii(text, position, line_end, width, starts)
        if newline < 0:
            return starts
        position = newline + 1
        starts.append(position)


def _wrap_ascii(text: str, position: int, end: int, width: int, starts: list[int]) -> None:
    """Wrap text[position:end], one character a cell, appending where each further line starts."""
    while end - position > width:
        blank = text.rfind(" ", position, position + width + 1)  # a blank just past the width may end a line
        position = blank + 1 if blank >= position else position + width
        starts.append(position)


@lru_cache(maxsize=4096)
def _cells(character: str) -> int:
    """How many cells `character` takes as shown."""
    if character == "\t":
        return len(TAB)
    return cell_len(Content(character).plain)  # control characters as their visible glyphs


def _wrap_measured(text: str, position: int, end: int, width: int, starts: list[int]) -> None:
    """Wrap text[position:end] measuring each character (tabs, control and wide characters)."""
    column = 0
    line_start = position
    blank = -1  # the last blank of the current line
    for index in range(position, end):
        character = text[index]
        cells = _cells(character)
        if column + cells > width and index > line_start and character == " ":
            line_start, column, blank = index + 1, 0, -1  # a blank just past the width ends the line
            starts.append(line_start)
            continue
        while column + cells > width and index > line_start:  # (the rest of the line may not fit either)
            line_start = blank + 1 if blank >= line_start else index
            starts.append(line_start)
            column = sum(_cells(c) for c in text[line_start:index])
            blank = -1
        if character == " ":
            blank = index
        column += cells
