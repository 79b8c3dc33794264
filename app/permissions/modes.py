"""Permission modes: how much runs without asking, per workstream."""

from __future__ import annotations

import re
from typing import Literal

Mode = Literal["ask", "accept-edits", "plan", "auto", "bypass"]
MODES: tuple[Mode, ...] = ("ask", "accept-edits", "plan", "auto", "bypass")
CYCLE: tuple[Mode, ...] = ("ask", "accept-edits", "plan", "auto")  # Shift+Tab; bypass only from the CLI
DESCRIPTIONS: dict[Mode, str] = {
    "ask": "asks before anything that changes files or runs commands",
    "accept-edits": "file edits inside the workspace run unasked",
    "plan": "read-only: whatever is not known to only read is refused, whatever a rule allows",
    "auto": "everything runs unasked except high and critical risk",
    "bypass": "nothing is asked (started with --dangerously-bypass-approvals)",
}
EDIT_TOOLS = {"write_file", "edit_file"}
DELEGATING_TOOLS = {"task", "plan"}  # sub-agents: every call of theirs is judged by the same gate and mode


def next_mode(mode: Mode) -> Mode:
    """The mode after `mode` in the Shift+Tab cycle (bypass leaves the cycle at ask)."""
    if mode not in CYCLE:
        return "ask"
    return CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)]


def check_mode(value: str) -> Mode:
    """`value` as a Mode; ValueError naming the modes otherwise (bypass is not settable in files)."""
    if value not in CYCLE:
        raise ValueError(f"mode must be one of {', '.join(CYCLE)}, got {value!r}")
    return value  # type: ignore[return-value]


# Commands that only read, when given alone (no pipes, redirections, substitutions or chaining).
READING_COMMANDS = frozenset({"ls", "pwd", "cat", "head", "tail", "wc", "grep", "rg", "tree", "file", "stat",
                              "du", "df", "which", "echo", "date", "whoami", "uname"})
READING_GIT = frozenset({"status", "log", "diff", "show", "branch", "ls-files", "blame"})
SHELL_SYNTAX = set(";&|<>`$(){}\\\n*?[!~")


def reads_only(command: str) -> bool:
    """Whether a bash command surely only reads, inside the workspace: one known reading command, no shell
    syntax at all, no absolute path and no `..`."""
    if not command.strip() or SHELL_SYNTAX & set(command):
        return False
    words = command.split()
    if any(".." in word or any(part.startswith("/") for part in re.split(r"[=,:]", word.lstrip("-")))
           for word in words[1:]):
        return False
    if words[0] == "git":
        return len(words) > 1 and words[1] in READING_GIT
    return words[0] in READING_COMMANDS
