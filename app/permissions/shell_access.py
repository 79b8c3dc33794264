"""Which files a bash line reads and writes, as far as reading it tells, and what it cannot tell.

The gate applies path rules, plan mode and protected places to these paths. A redirection's target
is a write (`<` a read, `<>` both); a target whose value is only known when the command runs (`$HOME/x`,
`~+/x`, `$(pwd)/x`, an unquoted glob) is unknown, with the reason, and the gate asks about it. The
commands that write their operands (`touch`, `rm`, `tee`, `sed -i`, the destination of `cp` / `mv`) add
those; every other plain operand naming an existing file counts as a possible read, so a read rule sees
`cat .env`.
`/dev/null`, `/dev/stdout`, `/dev/stderr` and `/dev/tty` are not files anyone guards.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.permissions.shell import Unparseable, Word
from app.permissions.wrappers import SHELLS, _peel_one, _shell_script, read_line

HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"})
ALL_OPERANDS_WRITTEN = frozenset({"touch", "mkdir", "rm", "rmdir", "tee", "truncate", "shred", "unlink", "mv"})
LAST_OPERAND_WRITTEN = frozenset({"cp", "ln", "install", "rsync", "scp"})
GLOB_CHARS = frozenset("*?[")


@dataclass
class Touched:
    """The paths a line writes and reads (resolved, absolute), and why some target is unknown."""

    writes: list[Path] = field(default_factory=list)
    reads: list[Path] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def touched(command: str, cwd: Path) -> Touched:
    """What `command`, run in `cwd`, reads and writes. A line that cannot be read is all unknown."""
    out = Touched()
    try:
        simple_commands, effective = read_line(command)
    except Unparseable as error:
        out.unknown.append(f"the command could not be read ({error})")
        return out
    for simple in simple_commands:
        for op, target in simple.redirects:
            if op == "<<<":
                continue  # a here-string is text, not a file
            writes = op.startswith(">") or op.startswith("&>") or op == "<>"
            reads = op.startswith("<")
            _add(out, target, cwd, writes=writes, reads=reads, what=f"the redirection target `{_raw(target)}`")
        script = _inner_script(simple.words)
        if script is not None:  # `bash -c '… > f'`: the inner line's redirections write too
            inner = touched(script, cwd)
            out.writes += inner.writes
            out.reads += inner.reads
            out.unknown += inner.unknown
    for run in effective:
        words = run.words
        name = os.path.basename(words[0].text) if words else ""
        operands = [w for w in words[1:] if not w.text.startswith("-") or w.text == "-"]
        written: list[Word] = []
        if name in ALL_OPERANDS_WRITTEN:
            written = operands
        elif name in LAST_OPERAND_WRITTEN and len(operands) >= 2:
            written = operands[-1:]
        elif name == "sed" and any(w.text.startswith("-i") or w.text == "--in-place" for w in words[1:]):
            written = operands[1:]  # the script, then the files edited in place
        for word in operands:
            if word in written:
                _add(out, word, cwd, writes=True, reads=name not in ("touch", "mkdir"),
                     what=f"`{_raw(word)}` (which {name} writes)")
            elif not word.has_expansion and not _remote(word.text):
                text = os.path.expanduser(word.text)  # a read's best guess: more rules apply, never fewer
                path = _path(text, cwd) if _exists(text, cwd) else None  # naming no file, it reads nothing
                if path is not None:
                    out.reads.append(path)
    out.writes, out.reads = list(dict.fromkeys(out.writes)), list(dict.fromkeys(out.reads))
    return out


def _inner_script(words: list[Word]) -> str | None:
    """The script of `[wrappers] bash -c SCRIPT`, else None (the reader already refused an unknown one)."""
    peeled = _peel_one(words)
    while peeled is not None:
        words = peeled[1]
        peeled = _peel_one(words)
    if not words or os.path.basename(words[0].text) not in SHELLS:
        return None
    try:
        return _shell_script(words[1:])
    except Unparseable:
        return None


def _add(out: Touched, word: Word, cwd: Path, *, writes: bool, reads: bool, what: str) -> None:
    text = word.text
    if text in HARMLESS_DEVICES or _remote(text):
        return  # a device nobody guards, or another machine's path (`host:dir` of scp and rsync)
    reason = _unknown(word)
    if reason:
        out.unknown.append(f"{what} {reason}")
        return
    path = _path(text, cwd)
    if path is None:
        return
    if writes:
        out.writes.append(path)
    if reads:
        out.reads.append(path)


def _unknown(word: Word) -> str:
    """Why a word's value is only known when the command runs, or ""."""
    if word.has_expansion:
        return "holds an expansion, so where it points is only known when the command runs"
    first = word.parts[0] if word.parts else None
    if first is not None and not first.quoted and first.text.startswith("~"):
        return "starts with `~`, which bash expands to a folder only known when it runs"
    if any(not p.quoted and GLOB_CHARS & set(p.text) for p in word.parts):
        return "holds a wildcard, so the file it names is only known when the command runs"
    return ""


def _remote(text: str) -> bool:
    head = text.split("/", 1)[0]
    return ":" in head and not os.path.isabs(text)


def _raw(word: Word) -> str:
    return "".join(p.text for p in word.parts)


def _exists(text: str, cwd: Path) -> bool:
    try:
        return bool(text) and os.path.lexists(text if os.path.isabs(text) else os.path.join(cwd, text))
    except (OSError, ValueError):
        return False


def _path(text: str, cwd: Path) -> Path | None:
    if not text or "\x00" in text:
        return None
    path = Path(text) if os.path.isabs(text) else cwd / text
    try:
        return Path(os.path.normpath(path)).resolve()
    except (OSError, RuntimeError):
        return Path(os.path.normpath(path))
