"""The decision for one call: rules, mode, protected places and risk together, with the reason.

Order: a deny rule refuses (tool rules, and path rules on every file the call reads or writes, whatever
the tool), so no override and no mode gets past it; critical risk always asks with a deliberate
override; plan mode refuses whatever is not known to only read, whatever an allow rule says (a bash
command that surely only reads, `ls`, `git status`, may run; an MCP tool never runs unasked there, see
`_plan`); protected places (`.git/`, `.whimbrel/`, `.mcp.json`, Whimbrel's own config and data, anything
outside the workspace, a read outside it that no `read(…)` rule covers, a write whose target is only known at
run time, a write through a hard link) are
asked about in every mode but bypass; so is a secret path (`.env`, keys, `~/.ssh`…) unless an allow path
rule names it, and a folder read whole (`grep -r`, `rg`, `tar c .`, `cp -r`) that holds such a secret or a file a
path rule denies or asks about; an ask rule asks; an allow rule allows (a bash rule covers its command, not the files its
redirections write: those are edits); then the mode decides. Without a sandbox, a command that no rule
allows is asked about even in auto.
"""

from __future__ import annotations

import os
import stat
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app.permissions.access import LINK_SEARCH_LIMIT, Access, call_access
from app.permissions.call_view import CallView
from app.permissions.modes import DELEGATING_TOOLS, EDIT_TOOLS, Mode, reads_only
from app.permissions.policy import CallFacts, Policy, RuleVerdict
from app.permissions.risk import Risk, assess_call, is_secret_path
from app.permissions.rules import Rule, path_kind, path_regex
from app.permissions.suggest import command_rule, quote_word, suggest_rules
from app.permissions.watch_calls import as_judged

Outcome = Literal["allow", "ask", "deny"]
# Workspace places whose content makes Whimbrel, git or the shell run commands (project policy, hooks and
# skills, MCP servers, git config and hooks, git filters, direnv): a write there always asks.
STARTS_THINGS = (".git", ".whimbrel", ".mcp.json", ".gitattributes", ".gitmodules", ".envrc")
# Outside the workspace, places any user may read that hold nothing of theirs (docs, headers, libraries):
# reading them needs no rule. Everything else outside (home, /etc, /tmp, other projects) asks.
SYSTEM_READS = (Path("/usr/share"), Path("/usr/include"), Path("/usr/lib"))
Source = Literal["rule", "mode", "risk", "protected", "hook", "sandbox", "user", "tool"]


@dataclass
class Verdict:
    """The gate's answer. `why` is one line for the modal, the card and the model."""

    outcome: Outcome
    source: Source
    why: str
    risk: Risk
    rules: list[Rule] = field(default_factory=list)
    needs_override: bool = False  # critical: only a deliberate key approves
    suggestions: list[str] = field(default_factory=list)  # "Always" offers these
    network: bool = False  # a sandboxed command may use the network
    # for a run nobody attends (`whimbrel run`, `mcp serve`): the flags that would let it run unasked, as they
    # would be typed; "" when the generic advice (an --allow rule for the tool, or another --mode) is right
    advice: str = ""

    @property
    def decided_by(self) -> str:
        """Who decided, for the audit log and the card: `rule allow bash(...) (project, f:3)`."""
        if self.source == "rule" and self.rules:
            return "rule " + "; ".join(r.label for r in self.rules)
        return f"{self.source}: {self.why}"


@dataclass
class Gate:
    """Decides calls for one workstream: its policy, its mode, where it may write freely."""

    policy: Policy
    mode: Mode = "ask"
    protected: list[Path] = field(default_factory=list)  # config and data dirs
    sandboxed: bool = True
    network: bool = False  # the workstream's default for sandboxed commands

    @property
    def workspace(self) -> Path:
        return self.policy.workspace

    def decide(self, call: CallView) -> Verdict:
        call = as_judged(call)  # watch: list/cancel only read; create and its polls are judged as bash
        access = call_access(call.tool, call.args, call.paths, call.path_args, call.read_only, self.workspace)
        risk = _with_secrets(assess_call(call.tool, call.args, call.paths, self.workspace), access)
        facts = CallFacts(call.tool, command=call.args.get("command") if call.tool == "bash" else None,
                          paths=call.paths, value=_main_value(call), reads=access.reads, writes=access.writes)
        rules = self.policy.decide(facts)
        verdict = self._decide(call, risk, rules, access)
        if verdict.outcome == "ask" and not verdict.suggestions:
            verdict.suggestions = self._suggest(call, rules)
        verdict.network = self.network or any(r.network for r in verdict.rules if r.decision == "allow")
        return verdict

    def _decide(self, call: CallView, risk: Risk, rules: RuleVerdict, access: Access) -> Verdict:
        if rules.decision == "deny":
            return Verdict("deny", "rule", rules.why, risk, rules.rules)
        if risk.level == "critical":
            return Verdict("ask", "risk", f"critical risk: {risk.reason}; only a deliberate override runs it",
                           risk, rules.rules, needs_override=True,
                           advice="no flag: only a person's deliberate override runs a critical risk")
        if self.mode == "bypass":
            return Verdict("allow", "mode", "bypass mode (--dangerously-bypass-approvals)", risk)
        if self.mode == "plan":
            refused = self._plan(call, risk, access, rules)
            if refused is not None:
                return refused
        protected = self._protected(call, access)
        if protected:
            return Verdict("ask", "protected", protected, risk, rules.rules, advice="no --allow rule and no --mode: "
                           "this is asked about in every mode (only --dangerously-bypass-approvals skips asking)")
        secret = self._secret(call, access)
        if secret:
            wanted = self._secret_rule(access)
            return Verdict("ask", "risk", secret, risk, rules.rules, suggestions=[wanted],
                           advice=f"--allow {shlex.quote(wanted)}")
        inside = self._inside_folders(call, access)
        if inside:
            return Verdict("ask", "risk", inside, risk, rules.rules, advice="no --allow rule for the command: it "
                           "would read that file too (name the folders or files to read so that it is left out)")
        if rules.decision == "ask":
            return Verdict("ask", "rule", rules.why, risk, rules.rules)
        if rules.unparseable:
            return Verdict("ask", "rule", rules.why, risk)
        if rules.decision == "allow":
            unasked, extra = self._redirected_writes(call, rules, access)
            if unasked:
                wanted = [f"edit({quote_word(_shown(p, self.workspace))})" for p in extra]
                flags = " ".join(f"--allow {shlex.quote(rule)}" for rule in wanted)
                return Verdict("ask", "rule", unasked, risk, rules.rules, suggestions=wanted,
                               advice=f"{flags} (writing a file is an edit) or --mode accept-edits")
            return Verdict("allow", "rule", rules.why, risk, rules.rules)
        return self._by_mode(call, risk, rules)

    def _plan(self, call: CallView, risk: Risk, access: Access, rules: RuleVerdict) -> Verdict | None:
        """Plan mode runs only what surely only reads, whatever an allow rule says: the harmless tools, a bash
        line `reads_only` vouches for, and, when a rule allows them, Whimbrel's own tools declared read-only
        and the sub-agents (every call of theirs meets this same gate). An MCP tool's `readOnlyHint` is the
        server's own claim and servers are not trusted, so such a tool asks (the user judges it); any other
        tool is refused."""
        if not access.writes:
            if call.read_only or _plan_reading(call) or \
                    ((call.changes_nothing or call.tool in DELEGATING_TOOLS) and rules.decision == "allow"):
                return None
            if call.claims_read_only:
                return Verdict("ask", "mode", f"plan mode: {call.tool}'s server says it only reads, which is only "
                               "the server's word, so it is asked about", risk)
        return Verdict("deny", "mode", f"plan mode is read-only: {call.tool} changes things (or may: nothing "
                       "vouches that it only reads) and is refused; describe the change in the plan instead", risk)

    def _by_mode(self, call: CallView, risk: Risk, rules: RuleVerdict) -> Verdict:
        mode = self.mode
        if call.read_only:  # declared to run unasked; only some of those only read (notify, memory do not)
            return Verdict("allow", "tool", f"{call.tool} only reads" if call.changes_nothing else
                           f"{call.tool} runs unasked (declared safe to; it is not read-only)", risk)
        if mode == "plan" and _plan_reading(call):
            return Verdict("allow", "mode", f"plan mode: `{call.args['command']}` only reads", risk)
        if call.tool == "bash" and not self.sandboxed:
            return Verdict("ask", "sandbox", "unsandboxed: no OS sandbox here, so every command no rule allows is "
                           f"asked about ({rules.why or 'no rule allows it'})", risk)
        if mode == "accept-edits" and call.tool in EDIT_TOOLS:
            return Verdict("allow", "mode", "accept-edits mode: edits inside the workspace run unasked", risk)
        if mode == "auto":
            if risk.at_least("high"):
                return Verdict("ask", "risk", f"{risk.level} risk in auto mode: {risk.reason}", risk)
            return Verdict("allow", "mode", f"auto mode ({risk.level} risk)", risk)
        why = rules.why or f"no rule allows {call.tool}"
        return Verdict("ask", "mode", f"{mode} mode: {why}", risk, rules.rules)

    def _protected(self, call: CallView, access: Access) -> str:
        """Why the call touches somewhere always asked about, or "" when it does not."""
        outside = [str(p) for p in call.paths if not p.is_relative_to(self.workspace)]
        if outside:
            return "path outside the workspace: " + ", ".join(outside)
        if access.unknown:
            return "asked about because " + "; ".join(access.unknown)
        read_outside = self._read_outside(call, access)
        if read_outside:
            return read_outside
        root = self.workspace
        for path in access.writes:
            if not path.is_relative_to(root):
                return f"writes outside the workspace: {path}"
            relative = path.relative_to(root).parts
            if relative and relative[0] in STARTS_THINGS:
                return f"writes to {relative[0]}, which makes Whimbrel or git run commands: always asked about"
            for place in self.protected:
                if path.is_relative_to(place) and not root.is_relative_to(place):  # a worktree lives in the data dir
                    return f"writes to Whimbrel's own files ({place}), which is always asked about"
        if access.links:
            return "; ".join(access.links)
        return ""

    def _read_outside(self, call: CallView, access: Access) -> str:
        """Why the call reads outside the workspace (symlinks resolved), or "" when it does not, reads only
        system places with nothing of the user's (`SYSTEM_READS`), or `read(…)` allow rules cover it."""
        outside = [p for p in access.reads if not p.is_relative_to(self.workspace)
                   and not any(p.is_relative_to(place) for place in SYSTEM_READS)]
        if not outside or self.policy.path_allows(outside, [], call.tool):
            return ""
        return ("reads outside the workspace (" + ", ".join(str(p) for p in outside[:3]) + "): asked about in every "
                "mode but bypass unless a read(…) allow rule covers it")

    def _secret(self, call: CallView, access: Access) -> str:
        """Why the call touches a secret path (`.env`, keys, `~/.ssh`…), asked about in every mode but bypass,
        or "" when it touches none or an allow rule naming that secret covers it."""
        for paths, kind in ((access.writes, "edit"), (access.reads, "read")):
            for path in paths:
                if is_secret_path(str(path)) and not self._secret_allowed(call.tool, path, kind):
                    what = "writes" if kind == "edit" else "reads"
                    return (f"high risk: {what} a secret ({_shown(path, self.workspace)}); no mode runs that unasked "
                            f"(an allow rule naming it, such as {kind}({_shown(path, self.workspace)}), would)")
        return ""

    def _secret_rule(self, access: Access) -> str:
        """The allow path rule that would cover the secret `_secret` found: `edit(.env)`, `read(deploy/k.pem)`."""
        for paths, kind in ((access.writes, "edit"), (access.reads, "read")):
            for path in paths:
                if is_secret_path(str(path)):
                    return f"{kind}({quote_word(_shown(path, self.workspace))})"
        return "read"

    def unreadable(self, path: Path, tool: str = "search") -> str:
        """Why `tool` may not read `path` without asking (a deny or ask path rule, or a secret no allow rule
        names), or "" when it may: what a tool reading many files at once (search) leaves out. A cheap look at
        the name comes first, so judging every file of a large folder stays fast."""
        name = str(path)
        if not is_secret_path(name) and not self._read_rule_may_match(name):
            return _linked(path)
        for decision in ("deny", "ask"):
            found = self.policy.path_verdict([path], [], decision)  # type: ignore[arg-type]
            if found is not None and (decision == "deny" or self.mode != "bypass"):
                return found.why
        if self.mode != "bypass" and is_secret_path(str(path)) and not self._secret_allowed(tool, path, "read"):
            shown = _shown(path, self.workspace)
            return f"{shown} is a secret (an allow rule naming it, such as read({quote_word(shown)}), would let it be read)"
        return ""

    def _inside_folders(self, call: CallView, access: Access) -> str:
        """Why a folder the call reads whole (`grep -r`, `tar c .`, `cp -r`) must be asked about: it holds a file
        a path rule denies or asks about, or a secret; or it holds too many files to look at them all."""
        for folder in access.folders:
            where = _shown(folder, self.workspace) if folder != self.workspace else "the workspace"
            count = 0
            for name in _names_under(folder):  # by name first (cheap); the full judgement only for a hit
                count += 1
                if count > LINK_SEARCH_LIMIT:
                    return (f"reads {where} recursively, and it holds too many files to check them all against the "
                            "path rules and for secrets")
                why = self.unreadable(Path(name), call.tool)
                if why:
                    return f"reads {where} recursively, and it holds a file that may not be read unasked: {why}"
        return ""

    def _read_rule_may_match(self, name: str) -> bool:
        """Whether a deny or ask path rule on reads may cover the absolute file name `name` (its regexes kept
        while the rules, the mode and the workspace stay the same)."""
        key = (id(self.policy.rules), len(self.policy.rules), self.mode, self.workspace)
        cached = self.__dict__.get("_read_regexes")
        if cached is None or cached[0] != key:
            decisions = ("deny",) if self.mode == "bypass" else ("deny", "ask")
            regexes = [path_regex(r.pattern, self.workspace) if r.pattern else None
                       for d in decisions for r, kind in self.policy._path_rules(d) if kind == "read"]  # noqa: SLF001
            cached = self.__dict__["_read_regexes"] = (key, regexes)
        prefix = str(self.workspace) + os.sep
        relative = name[len(prefix):] if name.startswith(prefix) else name
        return any(rx is None or rx.fullmatch(relative) for rx in cached[1])

    def _secret_allowed(self, tool: str, path: Path, kind: str) -> bool:
        """An allow path rule whose own pattern names a secret (`edit(**/.env)`, `read(~/.ssh/**)`) covers it."""
        kinds = ("edit",) if kind == "edit" else ("read", "edit")
        return any(r.decision == "allow" and path_kind(r, tool) in kinds and r.pattern and is_secret_path(r.pattern)
                   and r.matches_path(path, self.workspace) for r in self.policy.rules)

    def _redirected_writes(self, call: CallView, rules: RuleVerdict, access: Access) -> tuple[str, list[Path]]:
        """A bash rule covers its command, not the files its redirections write: those are edits, run unasked
        only in accept-edits and auto or when an `edit(…)` rule covers them. ("", []) when none is left over."""
        if call.tool != "bash" or not access.writes:
            return "", []
        named = _operand_paths(rules, self.workspace)
        extra = [p for p in access.writes if p not in named]
        if not extra or self.mode in ("accept-edits", "auto") or self.policy.path_allows([], extra):
            return "", []
        return (f"{rules.why}, but that covers the command, not what its redirection writes "
                f"({', '.join(_shown(p, self.workspace) for p in extra)}): writing files is an edit, asked about in "
                f"{self.mode} mode"), extra

    def _suggest(self, call: CallView, rules: RuleVerdict) -> list[str]:
        if call.tool == "bash" and rules.commands:
            allowed = {id(c) for c in rules.commands if any(r.decision == "allow" and r.matches_command(c)
                                                          for r in self.policy.rules if r.tool == "bash")}
            out: list[str] = []
            for command in rules.commands:
                rule = command_rule(command)
                if id(command) not in allowed and rule and rule not in out:
                    out.append(rule)
            return out
        return suggest_rules(call.tool, call.args, call.paths, self.workspace)


def _names_under(folder: Path):
    """Every file's (and symlink's) absolute name inside `folder` (itself when it is not a folder); symlinked
    folders are not followed (the link itself is judged)."""
    if not folder.is_dir():
        if folder.exists() or folder.is_symlink():
            yield str(folder)
        return
    for place, dirs, files in os.walk(folder):
        for name in files:
            yield os.path.join(place, name)
        for name in dirs:
            if os.path.islink(os.path.join(place, name)):
                yield os.path.join(place, name)


def _plan_reading(call: CallView) -> bool:
    """Plan mode lets a bash command run that surely only reads (one known reading command, no syntax)."""
    return call.tool == "bash" and isinstance(call.args.get("command"), str) and reads_only(call.args["command"])


def _main_value(call: CallView) -> str | None:
    if call.primary and isinstance(call.args.get(call.primary), str):
        return call.args[call.primary]
    if isinstance(call.args.get("url"), str):
        return call.args["url"]
    return None




def _with_secrets(risk: Risk, access: Access) -> Risk:
    """High risk when the call touches a secret path, whatever the tool (an MCP tool's path arguments too)."""
    if risk.at_least("high"):
        return risk
    secret = next((p for p in access.touched if is_secret_path(str(p))), None)
    return Risk("high", f"touches a secret ({secret})") if secret is not None else risk


def _operand_paths(rules: RuleVerdict, workspace: Path) -> set[Path]:
    """The paths the words of the matched commands name (what a rule on those commands saw and covered)."""
    out: set[Path] = set()
    for command in rules.commands:
        for word in command.argv[1:]:
            path = Path(word) if os.path.isabs(word) else workspace / word
            try:
                out.add(Path(os.path.normpath(path)).resolve())
            except (OSError, RuntimeError):
                continue
    return out


def _shown(path: Path, workspace: Path) -> str:
    return path.relative_to(workspace).as_posix() if path.is_relative_to(workspace) else str(path)


def protected_places(workspace: Path, data_dir: Path, config_path: Path) -> list[Path]:
    """Whimbrel's data dir and config file, unless the workspace lies inside one of them."""
    root = Path(workspace).resolve()
    out = []
    for place in (Path(data_dir).expanduser(), Path(config_path).expanduser()):
        resolved = place.resolve()
        if not root.is_relative_to(resolved):
            out.append(resolved)
    return out


def _linked(path: Path) -> str:
    """Why a file with several hard links is not read unasked: another of its names may be a secret or a
    denied file (`ln .env notes`), and a name alone cannot tell; "" for any other file."""
    try:
        info = path.lstat()
    except OSError:
        return ""
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return ""
    return (f"{path.name} has {info.st_nlink} names (hard links): another of them may be a secret or a file a "
            "rule denies, so it is not read unasked")
