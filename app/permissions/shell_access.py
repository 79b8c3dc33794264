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
        folders: list[Path]  what is read recursively, whole folders at a time: the folders given to
                             `grep -r`, `rg`, `find … -exec`, `tar c`, `cp -r`, `rsync`, `zip -r`, `diff -r` (the
                             working folder when none is given), and the working folder for a reader run by
                             `xargs` (its files come from its input), so rules on the files inside them apply
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
RECURSIVE_FLAGS = {"-r", "-R", "--recursive", "--dereference-recursive", "-a", "--archive"}
FIND_RUNS = ("-exec", "-execdir", "-ok", "-okdir")
# options that take a value as the next word, per command (the value is not a path operand)
VALUE_OPTIONS: dict[str, set[str]] = {
    "cp": {"-t", "--target-directory", "-S", "--suffix"}, "mv": {"-t", "--target-directory", "-S", "--suffix"},
    "ln": {"-t", "--target-directory", "-S", "--suffix"},
    "install": {"-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"},
    "truncate": {"-s", "--size", "-r", "--reference"}, "touch": {"-d", "--date", "-r", "--reference", "-t"},
    "mkdir": {"-m", "--mode"}, "head": {"-n", "-c", "--lines", "--bytes"}, "tail": {"-n", "-c", "--lines", "--bytes"},
    "sed": {"-e", "--expression", "-f", "--file", "-l", "--line-length"}, "shred": {"-n", "-s", "--size"},
    "grep": {"-e", "-f", "-m", "-A", "-B", "-C", "-d", "--regexp", "--file"}, "rg": {"-e", "-g", "-t", "-m", "-A", "-B", "-C"},
    "curl": {"-o", "--output", "-d", "--data", "-H", "-X", "-u", "-F", "-A", "-e", "-T"},
    "wget": {"-O", "--output-document", "-o", "-P"}, "sort": {"-o", "-k", "-t"},
    "chmod": {"--reference"}, "chown": {"--reference"}, "tee": set(),
    "tar": {"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b", "-H", "-I",
            "-g", "-V", "-K", "-N", "--exclude", "--transform", "--owner", "--group", "--mode", "--format"},
    "rsync": {"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from",
              "-B", "--block-size", "--files-from", "--log-file", "-T", "--temp-dir", "--chmod", "--chown"},
    "zip": {"-b", "-t", "-tt", "-x", "-i", "-n", "-P", "-O", "--out"}, "diff": {"-x", "-X", "-I", "-S", "-L"},
}


@dataclass
class Touched:
    """What a bash line writes and reads, and what is only known when it runs (see the module doc)."""

    writes: list[Path] = field(default_factory=list)
    reads: list[Path] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)


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
    _recursive(out, run, name, args, operands, values, cwd)


def _flag_set(args: list[Word]) -> set[str]:
    """Options as written, short ones also spread out (`-rn` gives -r and -n), up to `--`."""
    found: set[str] = set()
    for word in args:
        text = word.text
        if text == "--":
            break
        if text.startswith("--"):
            found.add(text.split("=", 1)[0] if not text.startswith("--directories=") else text)
        elif text.startswith("-") and len(text) > 1:
            found.add(text)
            found.update(f"-{c}" for c in text[1:])
    return found


def _recursive(out: Touched, run: Effective, name: str, args: list[Word], operands: list[Word],
               values: dict[str, Word], cwd: Path) -> None:
    """The folders `name` reads as a whole (see `folders` in the module doc)."""
    flags = _flag_set(args)
    what = f"a folder {name} reads recursively"
    folders: list[Word] = []
    if name in ("grep", "egrep", "fgrep"):
        recursive = flags & {"-r", "-R", "--recursive", "--dereference-recursive", "--directories=recurse"} or \
            (values.get("-d") is not None and values["-d"].text == "recurse")
        if recursive:
            folders = (operands if ("-e" in values or "-f" in values or "--regexp" in values) else operands[1:]) or \
                [Word.plain(".")]
    elif name == "rg":
        folders = (operands if ("-e" in values or "-f" in values) else operands[1:]) or [Word.plain(".")]
    elif name == "find" and any(w.text in FIND_RUNS for w in args):
        starts = []
        for word in args:
            if word.text.startswith(("-", "(", "!")) or word.text in ("(", "!"):
                break
            starts.append(word)
        folders = starts or [Word.plain(".")]
    elif name == "tar" and (flags & {"-c", "--create", "-r", "--append", "-u", "--update"} or
                            (args and not args[0].text.startswith("-") and set("cru") & set(args[0].text))):
        rest = operands[1:] if args and not args[0].text.startswith("-") else operands
        archive = values.get("-f") or values.get("--file")
        old_style_f = bool(args) and not args[0].text.startswith("-") and "f" in args[0].text
        if archive is None and ("-f" in flags or old_style_f) and rest:  # `-czf out.tgz`, `czf out.tgz`
            archive, rest = rest[0], rest[1:]
        if archive is not None and archive.text != "-":  # `-` is standard output
            _add(out, out.writes, archive, cwd, "the archive tar writes")
        folders = rest
        moved = values.get("-C") or values.get("--directory")  # `tar -C /etc -cf x.tar .` reads /etc
        if moved is not None:
            if moved.unknown:
                out.unknown.append(f"the folder tar -C reads in: {moved.unknown}, so its path is only known when it "
                                   "runs")
                return
            cwd = Path(moved.text) if os.path.isabs(moved.text) else Path(cwd) / moved.text
    elif name in ("cp", "scp") and flags & RECURSIVE_FLAGS:
        folders = operands[:-1] if values.get("-t") is None and values.get("--target-directory") is None else operands
    elif name == "rsync":
        folders = operands[:-1]
    elif name == "zip" and flags & {"-r", "--recurse-paths", "-R", "--recurse-patterns"}:
        folders = operands[1:]
    elif name == "diff" and flags & {"-r", "--recursive"}:
        folders = operands
    elif "xargs" in run.wrappers and (name in READERS or name in PATTERN_FIRST or name in ("cp", "tar", "zip")):
        folders = [Word.plain(".")]
        what = f"the files xargs hands to {name} (any under the working folder)"
    for word in folders:
        _add(out, out.folders, word, cwd, what)


def _after_equals(word: Word) -> Word:
    """`of=PATH` as the word PATH (its expansions kept, so an unknown value stays unknown)."""
    if word.has_expansion:
        return word
    return Word.plain(word.text.split("=", 1)[1])
