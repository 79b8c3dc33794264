"""What the gate sees of a call. Its own module so that the pieces the gate asks (watch_calls.py)
can build one without importing the gate."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class CallView:
    """What the gate sees of a call: name, arguments, resolved paths, and what the tool declares."""

    tool: str
    args: dict[str, Any]
    paths: list[Path] = field(default_factory=list)
    read_only: bool = False  # declared harmless (read_file, search): runs unasked in ask mode
    primary: str | None = None  # the main argument's name (rules on other tools match its value)
    path_args: tuple[str, ...] = ()  # the arguments holding paths (their values as written are judged too)
    claims_read_only: bool = False  # an MCP server says the tool only reads: a claim, never trusted to run unasked
    changes_nothing: bool = False  # Whimbrel's own tool declared read-only in its metadata (web_fetch, math)
