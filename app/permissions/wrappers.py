"""Commands that run another command (`sudo`, `timeout 5`, `env A=b`, `xargs`, `bash -c …`) seen through.

Rules and risk look at the command that actually runs; the wrappers met on the way are kept,
because `sudo` stays a risk of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import glob
import os

from app.permissions.runners import hidden_code, inline_lines, runner_reasons
from app.permissions.shell import SimpleCommand, Unparseable, Word, parse
from app.permissions.shell_words import env_reason

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
    "setsid": set(),
    "busybox": set(),  # `busybox rm x` runs its rm
    "coproc": set(),  # opaque anyway (see shell.RESERVED); seen through so deny rules see its command
}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash"}
# Commands that run text as code or change what later commands mean: no allow rule vouches for them.
EVAL_LIKE = {"eval": "runs its arguments as a command", "source": "runs a file's commands",
             ".": "runs a file's commands", "trap": "sets a command to run later", "alias": "redefines a command",
             "enable": "loads or switches off builtins", "bind": "binds keys to commands",
             "coproc": "runs a command in the background", "fc": "runs commands from history",
             "shopt": "changes how bash reads the rest of the line", "set": "changes bash's options",
             "hash": "changes which program a name runs", "declare": "changes variables",
             "typeset": "changes variables", "export": "changes the environment", "readonly": "changes variables",
             "local": "changes variables", "let": "evaluates arithmetic, which can run code",
             "mapfile": "can run a callback (-C)", "readarray": "can run a callback (-C)",
             "compgen": "can run a command (-C)", "complete": "can set a command to run (-C)"}
SEP = "\x1f"  # joins the words of a command, so a wildcard-free pattern never spans two words


@dataclass
class Effective:
    """The command that runs once wrappers are peeled off, and the wrappers that were peeled."""

    words: list[Word]
    wrappers: list[str] = field(default_factory=list)
    source: SimpleCommand | None = None
    reasons: list[str] = field(default_factory=list)  # opaque for what the wrappers did (`env GIT_X=…`)
    probe: bool = False  # read out of code or a glob name (best effort): deny and ask rules look at it, and
    # risk; an allow rule need not cover it (the command it came from is judged on its own)

    @cached_property
    def opaque(self) -> list[str]:
        """Why no allow rule may vouch for this command (empty when every part is plain)."""
        out = list(self.source.opaque) if self.source is not None else []
        out += [r for r in self.reasons if r not in out]
        name = self.words[0].text.rsplit("/", 1)[-1] if self.words else ""
        if name in EVAL_LIKE:
            out.append(f"`{name}` {EVAL_LIKE[name]}")
        out += [r for r in self.runs if r not in out]
        return out

    @cached_property
    def runs(self) -> list[str]:
        """Why this command's options or script make it run commands or write files (`git -c`, `sed 'e …'`,
        `find -delete`): opaque to a rule with a wildcard, covered by one that spells them out."""
        return runner_reasons(self.argv)

    @cached_property
    def hidden(self) -> list[str]:
        """Why this command runs code the reader cannot follow (inline code, `env -S`, a glob name): risk
        rates it high, since neither deny rules nor the risk patterns can see what that code does."""
        return hidden_code(self.argv, self.opaque)

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


def _peel_one(words: list[Word], reasons: list[str]) -> tuple[str, list[Word]] | None:
    """(wrapper name, the words after it and its options), or None when words[0] wraps nothing;
    what the wrapper does that makes the command opaque (`env PATH=…`, `env -S`) goes to `reasons`."""
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
        if name in ("env", "sudo", "doas") and "=" in text and not text.startswith("-"):
            variable = text.split("=", 1)[0]
            reason = env_reason(variable)
            if reason:
                reasons.append(f"`{name}` sets {variable}, which {reason}")
            i += 1
            continue
        if name == "env" and (text in ("-S", "--split-string") or text.startswith(("-S", "--split-string="))):
            reasons.append("`env -S` splits a string into a command")
            split = _split_string(rest, i)
            if split is not None:
                return name, split
        if rest[i].has_expansion:
            reasons.append(f"the wrapper `{name}`'s option `{text}` is only known when it runs")
        if not text.startswith("-") or text == "-":
            break
        i += 2 if text in takes_value else 1
    if name == "timeout" and i < len(rest):
        i += 1  # the duration
    return name, rest[i:]


def _split_string(rest: list[Word], i: int) -> list[Word] | None:
    """`env -S 'touch x' y`: the words env runs (its string read as a shell line would be, then the rest),
    or None when the string is not one plain command."""
    text = rest[i].text
    attached = text[2:] if text.startswith("-S") else text.split("=", 1)[1] if "=" in text else None
    value, after = (attached, rest[i + 1:]) if attached else (
        (rest[i + 1].text, rest[i + 2:]) if i + 1 < len(rest) and not rest[i + 1].has_expansion else (None, []))
    if value is None:
        return None
    try:
        inner = parse(value)
    except Unparseable:
        return None
    if len(inner) != 1 or not inner[0].words or inner[0].opaque or inner[0].redirects or inner[0].assignments:
        return None
    return inner[0].words + after


def effective_commands(commands: list[SimpleCommand]) -> list[Effective]:
    """Each simple command with its wrappers seen through; `bash -c '…'` is read as its own line."""
    out: list[Effective] = []
    for command in commands:
        out.extend(_effective(command, command.words, [], depth=0))
    return out


def _effective(source: SimpleCommand, words: list[Word], wrappers: list[str], depth: int,
               inherited: tuple[str, ...] = ()) -> list[Effective]:
    if depth > 10:
        raise Unparseable("wrappers are nested too deeply")
    reasons = list(inherited)
    peeled = _peel_one(words, reasons)
    while peeled is not None:
        wrappers = wrappers + [peeled[0]]
        words = peeled[1]
        peeled = _peel_one(words, reasons)
    name = words[0].text.rsplit("/", 1)[-1] if words else ""
    if name in SHELLS or name in ("eval", "trap"):
        script = _shell_script(words[1:]) if name in SHELLS else _eval_script(words[1:], name)
        if script is not None:
            inner = parse(script)
            found: list[Effective] = []
            outer = tuple(reasons + [r for r in source.opaque if r not in reasons]
                          + ([f"`{name}` {EVAL_LIKE[name]}"] if name in EVAL_LIKE else []))
            for command in inner:
                found.extend(_effective(command, command.words, wrappers, depth + 1, outer))
            return found or [Effective([], wrappers, source, list(outer))]
    found = [Effective(words, wrappers, source, reasons)]
    found += _probes(source, words, wrappers, depth, reasons)
    if name == "find":  # `find … -exec CMD {} ;`: CMD runs, and must be allowed (or denied) on its own
        for command_words in _find_commands(words[1:]):
            found.extend(_effective(source, command_words, wrappers, depth + 1, tuple(reasons)))
    return found


def _probes(source: SimpleCommand, words: list[Word], wrappers: list[str], depth: int,
            reasons: list[str]) -> list[Effective]:
    """Best effort, for deny rules and risk: the shell lines inside inline code (`python3 -c "os.system('…')"`,
    `awk 'BEGIN{system("…")}'`, `sed 's/.*/…/e'`) and the programs a glob command name could be."""
    out: list[Effective] = []
    why = tuple(reasons) + (f"read out of `{words[0].text}`'s code" if words else "",)
    for line in inline_lines([w.text for w in words]) if depth < 6 else []:
        try:
            inner = parse(line)
        except Unparseable:
            continue
        for command in inner:
            for run in _effective(command, command.words, wrappers, depth + 1, why):
                run.probe = True
                out.append(run)
    if words and not words[0].has_expansion and words[0].unknown and "glob" in words[0].unknown:
        for name in _glob_names(words[0].text):
            out.append(Effective([Word.plain(name), *words[1:]], wrappers, source, list(why), probe=True))
    return out


def _glob_names(pattern: str) -> list[str]:
    """The programs a glob command name (`/usr/bin/tou?h`, `t*ch`) could run, found as bash would."""
    if "/" in pattern:
        return sorted(set(glob.glob(pattern)))[:32]
    found: set[str] = set()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if folder:
            found.update(os.path.basename(p) for p in glob.glob(os.path.join(glob.escape(folder), pattern)))
    return sorted(found)[:32]


def _find_commands(args: list[Word]) -> list[list[Word]]:
    """The commands of `find`'s -exec, -execdir, -ok and -okdir actions (up to `;` or `+`)."""
    out: list[list[Word]] = []
    i = 0
    while i < len(args):
        if args[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            out.append(args[i + 1:end])
            i = end
        i += 1
    return out


def _eval_script(args: list[Word], name: str) -> str | None:
    """What `eval` runs (its arguments joined by spaces) or `trap` sets to run (its first argument), when
    none of it is only known at run time."""
    if name == "trap":
        args = [w for w in args if not w.text.startswith("-")][:1]
    if not args or any(word.has_expansion for word in args):
        return None  # opaque (EVAL_LIKE), and its commands unknown: asked about
    return " ".join(word.text for word in args)


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


def read_line(command: str) -> tuple[tuple[SimpleCommand, ...], tuple[Effective, ...]]:
    """(simple commands, effective commands) of a line, read once: rules, risk and the gate all ask
    about the same line (a line that cannot be read is remembered too). Raises Unparseable.
    Callers must not change what they get."""
    found = _read_line(command)
    if isinstance(found, Unparseable):
        raise Unparseable(str(found))
    return found


@lru_cache(maxsize=512)
def _read_line(command: str) -> tuple[tuple[SimpleCommand, ...], tuple[Effective, ...]] | Unparseable:
    try:
        simple = parse(command)
        return tuple(simple), tuple(effective_commands(simple))
    except Unparseable as error:
        return error
