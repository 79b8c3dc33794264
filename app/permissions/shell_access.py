"""Which paths a bash line reads and writes, as far as reading it tells (for path rules and plan mode).

    touched(command: str, cwd: Path) -> Touched
        writes:  list[Path]  output redirect targets (`>`, `>>`, `>|`, `&>`, `&>>`, `N>`, `>&file`) and
                             the paths that `cp`, `mv`, `install`, `ln` (their destination; `mv` its
                             sources too), `tee`, `sed -i`, `dd of=`, `touch`, `rm`, `rmdir`, `mkdir`,
                             `truncate`, `shred`, `unlink`, `chmod`/`chown`/`chgrp`, `curl -o`, `wget -O`,
                             `find -delete`/`-fprint`, sed's `w FILE`, `git --output` (runners.written)
                             write, wrappers (`sudo`, `env`, `timeout`…) seen through
        reads:   list[Path]  input redirects (`<`) and the files given to `cat`, `head`, `tail`, `less`,
                             `more`, `source`, `.`, `cp` (sources), `dd if=`, `grep`/`rg` (after the
                             pattern) and a few other readers
        unknown: list[str]   what is only known when the command runs, each with its reason: a target
                             or operand holding an expansion (`$HOME/x`, `$(pwd)/x`), `~`, `~+`, `~-`,
                             a glob or brace expansion, a command whose name is not known, or the
                             whole line when it cannot be read

Paths are absolute, relative ones taken from `cwd`, `..` folded and symlinks resolved, so a rule
about `.env` also sees a link to it. Devices that are not files (`/dev/null`, `/dev/stderr`, `/dev/fd/N`)
are left out. A caller should ask about any `unknown` entry rather than guess; a `~/…` operand is also
listed under the path it would most likely be ($HOME here), so deny rules and secret paths still see it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.permissions.runners import written
from app.permissions.shell import WRITE_OPERATORS, Unparseable, Word
from app.permissions.wrappers import Effective, read_line

NOT_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/random",
             "/dev/urandom")
ALL_WRITTEN = {"touch", "rm", "rmdir", "mkdir", "tee", "truncate", "shred", "unlink"}
LAST_WRITTEN = {"cp", "install", "ln"}  # the last operand (or -t DIR) is written, the others read (cp)
MODE_FIRST = {"chmod", "chown", "chgrp"}  # the first operand is a mode or an owner, the rest are written
READERS = {"cat", "head", "tail", "less", "more", "source", ".", "wc", "nl", "sort", "uniq", "xxd", "od",
           "hexdump", "base64", "file", "stat", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "strings", "tac"}
PATTERN_FIRST = {"grep", "egrep", "fgrep", "rg"}
# options that take a value as the next word, per command (the value is not a path operand)
VALUE_OPTIONS: dict[str, set[str]] = {
    "cp": {"-t", "--target-directory", "-S", "--suffix"}, "mv": {"-t", "--target-directory", "-S", "--suffix"},
    "ln": {"-t", "--target-directory", "-S", "--suffix"},
    "install": {"-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"},
    "truncate": {"-s", "--size", "-r", "--reference"}, "touch": {"-d", "--date", "-r", "--reference", "-t"},
    "mkdir": {"-m", "--mode"}, "head": {"-n", "-c", "--lines", "--bytes"}, "tail": {"-n", "-c", "--lines", "--bytes"},
    "sed": {"-e", "--expression", "-f", "--file", "-l", "--line-length"}, "shred": {"-n", "-s", "--size"},
    "grep": {"-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file"}, "rg": {"-e", "-g", "-t", "-m", "-A", "-B", "-C"},
    "curl": {"-o", "--output", "-d", "--data", "-H", "-X", "-u", "-F", "-A", "-e", "-T"},
    "wget": {"-O", "--output-document", "-o", "-P"}, "sort": {"-o", "-k", "-t"},
    "chmod": {"--reference"}, "chown": {"--reference"}, "tee": set(),
}


@dataclass
class Touched:
    """What a bash line writes and reads, and what is only known when it runs (see the module doc)."""

    writes: list[Path] = field(default_factory=list)
    reads: list[Path] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def touched(command: str, cwd: Path) -> Touched:
    """The paths `command` writes and reads, relative ones from `cwd`; never raises for a bad line."""
    out = Touched()
    try:
        simple, effective = read_line(command)
    except Unparseable as error:
        out.unknown.append(f"the command could not be read ({error})")
        return out
    sources: list = []
    for part in (*simple, *(run.source for run in effective)):  # `bash -c '… > f'`: the inner line's too
        if part is not None and not any(part is seen for seen in sources):
            sources.append(part)
    for part in sources:
        for operator, target in part.redirects:
            if operator in WRITE_OPERATORS:
                _add(out, out.writes, target, cwd, f"the target of `{operator}`")
            elif operator == "<":
                _add(out, out.reads, target, cwd, "the input of `<`")
    for run in effective:
        _command(out, run, cwd)
    return out


def _add(out: Touched, into: list[Path], word: Word, cwd: Path, what: str) -> None:
    reason = word.unknown
    if reason:
        out.unknown.append(f"{what}: {reason}, so its path is only known when it runs")
        guess = _home_guess(word.text)
        if guess is not None and guess not in into:  # asked about anyway; deny rules and secrets see the likely path
            into.append(guess)
        return
    text = word.text
    if not text or text in NOT_FILES or text.startswith("/dev/fd/") or text.startswith("/proc/self/fd/"):
        return
    path = Path(text) if os.path.isabs(text) else Path(cwd) / text
    try:
        resolved = Path(os.path.normpath(path)).resolve()
    except (OSError, RuntimeError):
        resolved = Path(os.path.normpath(path))
    if resolved not in into:
        into.append(resolved)


def _home_guess(text: str) -> Path | None:
    """`~/x` as it would most likely expand ($HOME of this process), for deny rules and secrets only."""
    if text != "~" and not text.startswith("~/"):
        return None
    home = os.environ.get("HOME")
    if not home or any(ch in text for ch in "$`*?[{"):
        return None
    try:
        return Path(os.path.normpath(Path(home) / text[2:])).resolve()
    except (OSError, RuntimeError):
        return None


def _operands(name: str, words: list[Word]) -> tuple[list[Word], dict[str, Word]]:
    """(operands, {option: its value}) of a command's arguments, options with values taken out."""
    takes = VALUE_OPTIONS.get(name, set())
    operands: list[Word] = []
    values: dict[str, Word] = {}
    i, ended = 0, False
    while i < len(words):
        word = words[i]
        text = word.text
        if ended or not text.startswith("-") or text == "-":
            operands.append(word)
        elif text == "--":
            ended = True
        elif "=" in text and text.startswith("--"):
            key, value = text.split("=", 1)
            values[key] = Word.plain(value) if not word.has_expansion else word
        elif text in takes and i + 1 < len(words):
            values[text] = words[i + 1]
            i += 1
        elif len(text) > 2 and text[:2] in takes and not text.startswith("--"):
            values[text[:2]] = Word.plain(text[2:]) if not word.has_expansion else word
        i += 1
    return operands, values


def _command(out: Touched, run: Effective, cwd: Path) -> None:
    if not run.words:
        return
    first = run.words[0]
    if first.has_expansion:
        out.unknown.append(f"the command `{first.text}` is only known when it runs")
        return
    name = first.text.rsplit("/", 1)[-1]
    args = run.words[1:]
    operands, values = _operands(name, args)
    write = lambda word, what=f"an operand of {name}": _add(out, out.writes, word, cwd, what)  # noqa: E731
    read = lambda word, what=f"an operand of {name}": _add(out, out.reads, word, cwd, what)  # noqa: E731
    target_dir = values.get("-t") or values.get("--target-directory")
    if name in ALL_WRITTEN:
        for word in operands:
            write(word)
    elif name in LAST_WRITTEN or name == "mv":
        if target_dir is not None:
            write(target_dir)
            sources = operands
        else:
            sources = operands[:-1]
            if operands:
                write(operands[-1])
        for word in sources:
            (write if name == "mv" else read)(word)
    elif name in MODE_FIRST:
        for word in operands[0 if "--reference" in values else 1:]:
            write(word)
    elif name == "sed":
        in_place = any(w.text.startswith("-i") or w.text.startswith("--in-place") or
                       (w.text.startswith("-") and not w.text.startswith("--") and "i" in w.text[1:])
                       for w in args if w.text.startswith("-"))
        files = operands if ("-e" in values or "--expression" in values or "-f" in values) else operands[1:]
        for word in files:
            (write if in_place else read)(word)
    elif name == "dd":
        for word in args:
            if word.text.startswith("of="):
                write(_after_equals(word), "the of= of dd")
            elif word.text.startswith("if="):
                read(_after_equals(word), "the if= of dd")
    elif name in ("curl", "wget"):
        for key in ("-o", "--output", "-O", "--output-document"):
            if key in values and not (name == "curl" and key == "-O"):
                write(values[key], f"the output file of {name}")
    elif name in READERS:
        for word in operands:
            read(word)
    elif name in PATTERN_FIRST:
        for word in operands if ("-e" in values or "-f" in values) else operands[1:]:
            read(word)
    if name == "sort" and "-o" in values:
        write(values["-o"], "the output file of sort")
    paths, unknown = written([w.text for w in run.words])
    for path in paths:
        write(Word.plain(path), f"a file {name} writes")
    out.unknown.extend(unknown)


def _after_equals(word: Word) -> Word:
    """`of=PATH` as the word PATH (its expansions kept, so an unknown value stays unknown)."""
    if word.has_expansion:
        return word
    return Word.plain(word.text.split("=", 1)[1])
