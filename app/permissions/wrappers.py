"""Commands that run another command (`sudo`, `timeout 5`, `env A=b`, `xargs`, `bash -c …`) seen through.

Rules and risk look at the command that actually runs; the wrappers met on the way are kept,
because `sudo` stays a risk of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from app.permissions.shell import SimpleCommand, Unparseable, Word, parse

# wrapper -> options that take a value (the value is skipped with the option)
WRAPPERS: dict[str, set[str]] = {
    "sudo": {"-u", "-g", "-p", "-C", "-h", "-r", "-t", "-U", "-D"},
    "doas": {"-u", "-C"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "env": {"-u", "--unset", "-C", "--chdir", "-S"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p"},
    "xargs": {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--max-args", "--max-procs", "--delimiter"},
    "time": {"-f", "-o", "--format", "--output"},
    "command": set(),
    "nohup": set(),
    "stdbuf": {"-i", "-o", "-e"},
    "exec": {"-a"},
    "builtin": set(),
}
SHELLS = {"bash", "sh", "zsh", "dash"}
SEP = "\x1f"  # joins the words of a command, so a wildcard-free pattern never spans two words


@dataclass
class Effective:
    """The command that runs once wrappers are peeled off, and the wrappers that were peeled."""

    words: list[Word]
    wrappers: list[str] = field(default_factory=list)
    source: SimpleCommand | None = None

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]

    @cached_property
    def key(self) -> str:
        """The words joined by SEP, as rule patterns are matched (computed once per line)."""
        return SEP.join(w.text for w in self.words)

    @cached_property
    def loose_key(self) -> str | None:
        """`key` with the command's folder dropped (`/bin/rm` as `rm`), when it has one."""
        if not self.words or "/" not in self.words[0].text:
            return None
        return SEP.join([self.words[0].text.rsplit("/", 1)[-1], *(w.text for w in self.words[1:])])


def _peel_one(words: list[Word]) -> tuple[str, list[Word]] | None:
    """(wrapper name, the words after it and its options), or None when words[0] wraps nothing."""
    if not words:
        return None
    name = words[0].text.rsplit("/", 1)[-1]
    if name not in WRAPPERS:
        return None
    takes_value = WRAPPERS[name]
    rest = words[1:]
    i = 0
    while i < len(rest):
        text = rest[i].text
        if text == "--":
            i += 1
            break
        if name == "env" and "=" in text and not text.startswith("-"):
            i += 1
            continue
        if not text.startswith("-") or text == "-":
            break
        i += 2 if text in takes_value else 1
    if name == "timeout" and i < len(rest):
        i += 1  # the duration
    return name, rest[i:]


def effective_commands(commands: list[SimpleCommand]) -> list[Effective]:
    """Each simple command with its wrappers seen through; `bash -c '…'` is read as its own line."""
    out: list[Effective] = []
    for command in commands:
        out.extend(_effective(command, command.words, [], depth=0))
    return out


def _effective(source: SimpleCommand, words: list[Word], wrappers: list[str], depth: int) -> list[Effective]:
    if depth > 10:
        raise Unparseable("wrappers are nested too deeply")
    peeled = _peel_one(words)
    while peeled is not None:
        wrappers = wrappers + [peeled[0]]
        words = peeled[1]
        peeled = _peel_one(words)
    if words and words[0].text.rsplit("/", 1)[-1] in SHELLS:
        script = _shell_script(words[1:])
        if script is not None:
            inner = parse(script)
            found: list[Effective] = []
            for command in inner:
                found.extend(_effective(command, command.words, wrappers, depth + 1))
            return found or [Effective([], wrappers, source)]
    return [Effective(words, wrappers, source)]


def _shell_script(args: list[Word]) -> str | None:
    """The script of `bash -c SCRIPT` (options such as -e, -x, -l allowed before -c), else None."""
    for i, word in enumerate(args):
        text = word.text
        if text.startswith("-") and "c" in text[1:] and not text.startswith("--"):
            if i + 1 >= len(args):
                raise Unparseable(f"'{text}' is missing its script")
            if args[i + 1].has_expansion:
                raise Unparseable(f"the script of '{text}' is only known when it runs")
            return args[i + 1].text
        if not text.startswith("-"):
            return None
    return None


@lru_cache(maxsize=512)
def read_line(command: str) -> tuple[tuple[SimpleCommand, ...], tuple[Effective, ...]]:
    """(simple commands, effective commands) of a line, read once: rules, risk and the gate all ask
    about the same line. Raises Unparseable. Callers must not change what they get."""
    simple = parse(command)
    return tuple(simple), tuple(effective_commands(simple))
