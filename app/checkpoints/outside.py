"""Which paths outside the workspace a turn's tool calls touched (those are never captured).

File tools name their path exactly. For shell commands the words after a redirection and the
arguments of commands that change files are read; that is a best guess, said as such on screen.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Iterable

from app.vocabulary.messages import Message

FILE_TOOLS = ("write_file", "edit_file")
CHANGING_COMMANDS = {"rm", "mv", "cp", "sed", "tee", "touch", "chmod", "chown", "mkdir", "rmdir", "ln",
                     "truncate", "install", "rsync", "dd"}
SEPARATORS = {"&&", "||", ";", "|", "&"}


def _outside(raw: str, workspace: Path) -> str | None:
    if raw.startswith("/dev/"):
        return None
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = workspace / path
    resolved = path.resolve()
    return None if resolved.is_relative_to(workspace) else str(resolved)


def _shell_targets(command: str) -> Iterable[str]:
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return []
    found, changing, expect_target = [], False, False
    for word in words:
        if word in SEPARATORS:
            changing = False
            continue
        if expect_target:
            found.append(word)
            expect_target = False
            continue
        if word in (">", ">>", "2>", "&>"):
            expect_target = True
        elif word.startswith((">", ">>")) and len(word.lstrip(">")) > 0:
            found.append(word.lstrip(">"))
        elif Path(word).name in CHANGING_COMMANDS:
            changing = True
        elif changing and not word.startswith("-") and ("/" in word or word.startswith("~")):
            found.append(word)
    return found


def outside_paths(turn: list[Message], workspace: Path) -> list[str]:
    """Paths outside `workspace` that the turn's tool calls wrote or may have written, sorted."""
    workspace = workspace.resolve()
    seen: set[str] = set()
    for message in turn:
        for call in message.tool_calls:
            try:
                args = json.loads(call.arguments or "{}")
            except json.JSONDecodeError:
                continue
            if not isinstance(args, dict):
                continue
            if call.name in FILE_TOOLS and isinstance(args.get("path"), str):
                candidates = [args["path"]]
            elif call.name == "bash" and isinstance(args.get("command"), str):
                candidates = list(_shell_targets(args["command"]))
            else:
                continue
            seen.update(p for p in (_outside(c, workspace) for c in candidates) if p)
    return sorted(seen)
