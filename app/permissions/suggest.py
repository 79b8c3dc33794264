"""The narrowest useful rule for a call, offered by "Always" (and editable before it is saved)."""

from __future__ import annotations

import re
from pathlib import Path

from app.permissions.shell import Unparseable, parse
from app.permissions.wrappers import Effective, effective_commands

PACKAGE_RUNNERS = {"npm", "pnpm", "yarn", "bun"}
_SAFE_WORD = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")


def quote_word(text: str) -> str:
    """A word as a rule writes it: quoted when it holds blanks, quotes or a literal `*`."""
    if _SAFE_WORD.match(text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def command_rule(command: Effective) -> str:
    """`bash(git status)` for a short command; `bash(npm run test:*)` for a script family;
    else the command and its subcommand with `*` for the rest."""
    argv = command.argv
    if not argv or command.opaque:
        return ""  # no allow rule can match an opaque command
    if len(argv) <= 2 and all(not a.startswith("/") for a in argv):
        return f"bash({' '.join(quote_word(a) for a in argv)})"
    if argv[0] in PACKAGE_RUNNERS and argv[1] == "run" and len(argv) >= 3:
        script = argv[2]
        stem = script.split(":", 1)[0] + ":*" if ":" in script else quote_word(script) + " *"
        return f"bash({argv[0]} run {stem})"
    return f"bash({quote_word(argv[0])} {quote_word(argv[1])} *)"


def suggest_rules(tool: str, args: dict, paths: list[Path], workspace: Path,
                  skip: set[str] = frozenset()) -> list[str]:
    """One rule per part of the call still needing one (each simple command of a bash line)."""
    if tool == "bash":
        try:
            commands = effective_commands(parse(str(args.get("command", ""))))
        except Unparseable:
            return []
        out: list[str] = []
        for command in commands:
            rule = command_rule(command)
            if rule and rule not in out and rule not in skip:
                out.append(rule)
        return out
    if paths:
        root = workspace.resolve()
        shown = [p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p) for p in paths]
        return [f"{tool}({quote_word(s)})" for s in shown]
    return [tool]
