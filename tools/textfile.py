"""Loading files as text, with clear refusals for directories, missing and binary files."""

from __future__ import annotations

from pathlib import Path

from tools.errors import ToolError

_SNIFF_BYTES = 8192


def looks_binary(data: bytes) -> bool:
    """A NUL byte near the start marks a binary file (the heuristic ripgrep and git use)."""
    return b"\0" in data[:_SNIFF_BYTES]


def load_text(path: Path, label: str, *, strict: bool = True) -> str:
    """Read `path` as UTF-8 text; `strict=False` replaces undecodable bytes instead of refusing."""
    if path.is_dir():
        raise ToolError(f"{label} is a directory, not a file. Use bash (ls) or search to explore it.")
    if not path.exists():
        raise ToolError(f"{label} does not exist.")
    data = path.read_bytes()
    if looks_binary(data):
        raise ToolError(f"{label} looks like a binary file ({len(data):,} bytes); only text files can be read or edited.")
    try:
        return data.decode("utf-8", errors="strict" if strict else "replace")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{label} is not valid UTF-8 text (byte {exc.start}); it cannot be edited safely.") from None


def existing_text(path: Path) -> str:
    """The current text of a file for a diff: empty when it does not exist or is not readable text."""
    try:
        return load_text(path, str(path), strict=False)
    except (ToolError, OSError):
        return ""
