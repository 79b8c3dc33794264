"""Pure text logic of edit_file, shared by the real edit and its preview diff."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.errors import ToolError

_LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+\t", re.MULTILINE)


@dataclass(frozen=True)
class EditPlan:
    """The edited text and the 1-based lines (in the original) where replacements start."""

    new_text: str
    lines: list[int]


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def find_occurrences(text: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences of `needle`."""
    found: list[int] = []
    start = text.find(needle)
    while start != -1:
        found.append(start)
        start = text.find(needle, start + len(needle))
    return found


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _not_found_message(text: str, old: str, label: str) -> str:
    message = f"old_string was not found in {label}."
    if _LINE_NUMBER_PREFIX.search(old):
        message += (" It seems to include line-number prefixes from read_file output;"
                    " pass only the file's own text.")
    elif _squash(old) and _squash(old) in _squash(text):
        message += (" The text exists with different whitespace (indentation, tabs or line"
                    " breaks); copy it exactly as read_file shows it, without the line numbers.")
    else:
        message += " Read the file again and copy the exact text to replace."
    return message


def _closest(text: str, old: str, starts: list[int], near_line: int) -> int:
    """The occurrence whose line span is nearest to `near_line` (the earlier one on a tie)."""
    def distance(start: int) -> int:
        first = _line_of(text, start)
        last = first + old.count("\n")
        return 0 if first <= near_line <= last else min(abs(first - near_line), abs(last - near_line))
    return min(starts, key=distance)


def plan_edit(text: str, old: str, new: str, *, near_line: int | None = None,
              replace_all: bool = False, label: str = "the file") -> EditPlan:
    """Apply edit_file's rules to `text`; raise ToolError explaining any ambiguity or miss."""
    if not old:
        raise ToolError("old_string is empty. To create or overwrite a whole file use write_file.")
    if old == new:
        raise ToolError("old_string and new_string are identical; there is nothing to change.")
    starts = find_occurrences(text, old)
    if not starts:
        raise ToolError(_not_found_message(text, old, label))
    if replace_all:
        chosen = starts
    elif len(starts) == 1:
        chosen = starts
    elif near_line is not None:
        chosen = [_closest(text, old, starts, near_line)]
    else:
        lines = ", ".join(str(_line_of(text, s)) for s in starts)
        raise ToolError(
            f"old_string matches {len(starts)} times in {label} (at lines {lines}). Include more"
            " surrounding text to make it unique, pass near_line to pick the match closest to a"
            " line, or set replace_all to true to replace every match.")
    pieces: list[str] = []
    cursor = 0
    for start in chosen:
        pieces.append(text[cursor:start])
        pieces.append(new)
        cursor = start + len(old)
    pieces.append(text[cursor:])
    return EditPlan("".join(pieces), [_line_of(text, s) for s in chosen])
