"""Where a key is in config.toml's raw text: the line of each table header and key path, and of a key
assigned twice (tomlkit does not say), so that every problem the validation finds names its line."""

from __future__ import annotations

import re
from typing import Iterator

_KEY_PART = r'(?:[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\')'
_DOTTED = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_HEADER = re.compile(rf"^\s*\[\[?\s*({_DOTTED})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=")


def _split_key(dotted: str) -> tuple[str, ...]:
    parts = re.findall(_KEY_PART, dotted)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def _assignments(text: str) -> Iterator[tuple[tuple[str, ...], int, bool]]:
    """Yield (full key path, line, is_header) for each header and `key =` line."""
    table: tuple[str, ...] = ()
    in_multiline = False
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline:
            in_multiline = (line.count('"""') + line.count("'''")) % 2 == 0
            continue
        if header := _HEADER.match(line):
            table = _split_key(header.group(1))
            yield table, number, True
        elif assign := _ASSIGN.match(line):
            yield table + _split_key(assign.group(1)), number, False
            rest = line[assign.end():]
            in_multiline = (rest.count('"""') + rest.count("'''")) % 2 == 1


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map each table header and key path (e.g. ('models', 'x', 'model')) to its line."""
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for path, number, is_header in _assignments(text):
        if is_header:
            table = path
        for depth in range(len(table) + 1 - is_header, len(path) + 1):
            lines.setdefault(path[:depth], number)  # dotted keys define tables too
    return lines


def duplicate_line(text: str) -> int | None:
    """The line where a key is assigned a second time (tomlkit does not say)."""
    seen: set[tuple[str, ...]] = set()
    for path, number, is_header in _assignments(text):
        if not is_header:
            if path in seen:
                return number
            seen.add(path)
    return None
