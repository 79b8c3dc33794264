"""A permission rule: `tool(pattern)` with a decision, where it was written, and how it matches a call.

Bash patterns are read with the shell reader, so only an unquoted `*` is a wildcard (anywhere in
the pattern, the middle included) and a quoted one is a plain `*`. An allow rule matches only a
command whose every part is plain (no `$(…)`, operator expansion, behaviour-changing assignment…);
deny and ask rules match whatever the command holds. Path patterns are globs (`**`
crosses folders) matched against the call's path resolved in the workspace. `web_fetch(domain:…)`
matches the URL's host; other tools match their main argument.

Path rules are about paths, not tools: `read(glob)` binds every read of a matching file and
`edit(glob)` every write (create, overwrite, edit, delete, the target of a move), by any tool — the file
tools, bash (its redirections and the files `cp`, `mv`, `tee`, `sed -i` … write), MCP tools whose
arguments name paths, and `run_code`'s calls. A deny or ask rule written on a file tool keeps its old
meaning for that tool and binds the same paths for every tool too (`edit_file(**/.env)` denied is
`edit(**/.env)` denied); an allow rule on a file tool allows that tool only.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from app.permissions.shell import Unparseable, Word, parse
from app.vocabulary.globs import glob_to_regex
from app.permissions.wrappers import SEP, WRAPPERS, Effective

Decision = Literal["allow", "ask", "deny"]
DECISIONS: tuple[Decision, ...] = ("deny", "ask", "allow")  # strongest first
Scope = Literal["user", "project", "team", "workstream", "cli"]
_SPEC = re.compile(r"^\s*([A-Za-z0-9_*?.\-]+)\s*(?:\((.*)\))?\s*$", re.S)
PATH_TOOLS = {"read_file", "write_file", "edit_file"}
PATH_KINDS = ("read", "edit")  # `read(glob)`, `edit(glob)`: rules on paths whatever the tool
TOOL_KINDS = {"read_file": "read", "write_file": "edit", "edit_file": "edit"}


class RuleError(ValueError):
    """A rule that cannot be used; the message says why."""


@dataclass
class Rule:
    """One rule as written: `spec` is `tool(pattern)`; `where` is "file:line" for messages."""

    spec: str
    decision: Decision
    scope: Scope = "user"
    where: str = ""
    match: list[str] = field(default_factory=list)
    not_match: list[str] = field(default_factory=list)
    network: bool = False  # sandboxed commands this rule allows may use the network
    tool: str = ""
    pattern: str | None = None
    _regex: re.Pattern[str] | None = None
    _loose: re.Pattern[str] | None = None  # deny/ask: the command name may come with its folder

    def __post_init__(self) -> None:
        found = _SPEC.match(self.spec)
        if not found:
            raise RuleError(f"'{self.spec}' is not of the form tool or tool(pattern)")
        self.tool, self.pattern = found.group(1), found.group(2)
        if self.pattern is not None and not self.pattern.strip():
            raise RuleError(f"'{self.spec}' has an empty pattern; write '{self.tool}' to mean every call")
        if self.tool == "bash" and self.pattern is not None:
            self._regex, self._loose = _command_regexes(self.pattern, loose=self.decision != "allow")

    @property
    def label(self) -> str:
        """How the rule names itself in a why line: `allow bash(git status) (project, file:3)`."""
        where = f", {self.where}" if self.where else ""
        return f"{self.decision} {self.spec} ({self.scope}{where})"

    def names_tool(self, tool: str) -> bool:
        return fnmatchcase(tool, self.tool)

    # -- matching ----------------------------------------------------------------------
    def matches_command(self, command: Effective) -> bool:
        """Bash: does this rule cover one simple command (wrappers already seen through)? An allow rule
        never covers an opaque one (`$(…)`, `${x:-…}`, `GIT_*=…`: see `Effective.opaque`), whatever it says,
        except that a wildcard-free rule naming a runner's options itself (`bash(git -c core.pager=cat log)`)
        covers exactly that command (`Effective.runs`: the user wrote those options out)."""
        if self.decision == "allow" and command.opaque and not (
                self.pattern is not None and "*" not in self.pattern and set(command.opaque) <= set(command.runs)):
            return False
        if self.pattern is None:
            return True
        if self._regex is not None and self._regex.fullmatch(command.key):
            return True
        loose = command.loose_key
        return bool(self._loose is not None and loose is not None and self._loose.fullmatch(loose))

    def matches_path(self, path: Path, workspace: Path) -> bool:
        """Path tools: does the resolved `path` fall under this rule's glob?"""
        if self.pattern is None:
            return True
        return bool(path_regex(self.pattern, workspace).fullmatch(_relative(path, workspace)))

    def matches_value(self, value: str) -> bool:
        """Any other tool: its main argument (a URL's host for `domain:`)."""
        if self.pattern is None:
            return True
        if self.pattern.startswith("domain:"):
            wanted = self.pattern[len("domain:"):].strip().lower()
            host = (urlsplit(value).hostname or "").lower()
            return fnmatchcase(host, wanted) or (not wanted.startswith("*") and host.endswith("." + wanted))
        return fnmatchcase(value, self.pattern)


def _command_regexes(pattern: str, loose: bool) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """The regex of a bash pattern over SEP-joined words; raises RuleError when it cannot match."""
    try:
        commands = parse(pattern)
    except Unparseable as error:
        raise RuleError(f"the pattern does not parse as a command: {error}") from None
    if len(commands) != 1 or not commands[0].words:
        raise RuleError("the pattern is several commands; each part of a command line is matched on its own, "
                        "so this rule can never match (write one rule per command)")
    command = commands[0]
    if command.redirects or command.assignments:
        raise RuleError("the pattern has a redirection or an assignment, which are not matched; "
                        "this rule can never match")
    first = command.words[0].text
    if first in WRAPPERS:
        raise RuleError(f"'{first}' is seen through when commands are matched, so this rule can never match; "
                        "write the command it runs")
    words = command.words
    body = SEP.join(_word_regex(w) for w in words)
    if _bare_star(words[-1]) and len(words) > 1:  # `git *` also matches a bare `git`
        body = SEP.join(_word_regex(w) for w in words[:-1]) + f"(?:{re.escape(SEP)}.*)?"
    strict = re.compile(body, re.S)
    if not loose or "/" in first:
        return strict, None
    return strict, strict  # deny/ask: `/bin/rm -rf x` is matched by its name `rm` too


def _bare_star(word: Word) -> bool:
    return len(word.parts) == 1 and not word.parts[0].quoted and word.parts[0].text == "*"


def _word_regex(word: Word) -> str:
    out = []
    for part in word.parts:
        if part.quoted:
            out.append(re.escape(part.text))
        else:
            out.append(".*".join(re.escape(piece) for piece in part.text.split("*")))
    return "".join(out)


def _relative(path: Path, workspace: Path) -> str:
    root = workspace.resolve()
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()


def normalise_pattern(pattern: str, workspace: Path) -> str:
    """A path glob written relative to the workspace or absolute, `./` and `..` folded, `~` expanded."""
    text = os.path.expanduser(pattern.strip())
    cut = min([i for i in (text.find("*"), text.find("?"), text.find("[")) if i >= 0] or [len(text)])
    head, tail = text[:cut], text[cut:]
    root = workspace.resolve()
    if head:
        base = Path(head) if os.path.isabs(head) else root / head
        keep_slash = head.endswith("/")
        resolved = Path(os.path.normpath(str(base)))
        try:
            resolved = resolved.resolve()
        except OSError:
            pass
        head = _relative(resolved, root) if resolved != root else ""
        head = "" if head == "." else head
        if head and keep_slash:  # `src/**` keeps its folder; `secret*` and `src/a*.py` stay one name
            head += "/"
    return head + tail


@lru_cache(maxsize=1024)
def path_regex(pattern: str, workspace: Path) -> re.Pattern[str]:
    """`src/**`, `**/.env`, `*.py`: `**` crosses folders, `*` and `?` stay within one."""
    glob = normalise_pattern(pattern, workspace)
    source = glob_to_regex(glob)
    if glob.endswith("/"):
        source += ".*"
    return re.compile(source, re.S)


def path_kind(rule: Rule, tool: str | None = None) -> str | None:
    """"read" or "edit" when `rule` binds paths for every tool (`read(…)`, `edit(…)`, and a deny or ask on a
    file tool), or when `tool` is the file tool it names; else None (a tool rule only)."""
    if rule.tool in PATH_KINDS:
        return rule.tool
    kind = TOOL_KINDS.get(rule.tool)
    if kind is None or rule.pattern is None:
        return None
    return kind if rule.decision != "allow" or rule.tool == tool else None


def names_path_example(tool: str) -> bool:
    """Whether a rule on `tool` is matched against paths (its `match` examples are paths)."""
    return tool in PATH_TOOLS or tool in PATH_KINDS
