"""The decision for one call: rules, mode, protected places and risk together, with the reason.

Order: critical risk always asks with a deliberate override; a deny rule refuses; plan mode
refuses what changes things (a bash command that surely only reads, `ls`, `git status`, may run); protected places (`.git/`, `.whimbrel/`, Whimbrel's own config and
data, anything outside the workspace) are asked about in every mode but bypass; an ask rule
asks; an allow rule allows; then the mode decides. Without a sandbox, a command that no rule
allows is asked about even in auto.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app.permissions.call_view import CallView
from app.permissions.modes import EDIT_TOOLS, Mode, reads_only
from app.permissions.policy import CallFacts, Policy, RuleVerdict
from app.permissions.risk import Risk, assess_call
from app.permissions.rules import Rule
from app.permissions.suggest import command_rule, suggest_rules
from app.permissions.watch_calls import as_judged

Outcome = Literal["allow", "ask", "deny"]
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
        risk = assess_call(call.tool, call.args, call.paths, self.workspace)
        facts = CallFacts(call.tool, command=call.args.get("command") if call.tool == "bash" else None,
                          paths=call.paths, value=_main_value(call))
        rules = self.policy.decide(facts)
        verdict = self._decide(call, risk, rules)
        if verdict.outcome == "ask" and not verdict.suggestions:
            verdict.suggestions = self._suggest(call, rules)
        verdict.network = self.network or any(r.network for r in verdict.rules if r.decision == "allow")
        return verdict

    def _decide(self, call: CallView, risk: Risk, rules: RuleVerdict) -> Verdict:
        if risk.level == "critical":
            return Verdict("ask", "risk", f"critical risk: {risk.reason}; only a deliberate override runs it",
                           risk, rules.rules, needs_override=True)
        if rules.decision == "deny":
            return Verdict("deny", "rule", rules.why, risk, rules.rules)
        if self.mode == "bypass":
            return Verdict("allow", "mode", "bypass mode (--dangerously-bypass-approvals)", risk)
        if self.mode == "plan" and not call.read_only and (call.tool in EDIT_TOOLS or rules.decision != "allow") \
                and not _plan_reading(call):
            return Verdict("deny", "mode", f"plan mode is read-only: {call.tool} changes things and is refused; "
                           "describe the change in the plan instead", risk)
        protected = self._protected(call)
        if protected:
            return Verdict("ask", "protected", protected, risk, rules.rules)
        if rules.decision == "ask":
            return Verdict("ask", "rule", rules.why, risk, rules.rules)
        if rules.unparseable:
            return Verdict("ask", "rule", rules.why, risk)
        if rules.decision == "allow":
            return Verdict("allow", "rule", rules.why, risk, rules.rules)
        return self._by_mode(call, risk, rules)

    def _by_mode(self, call: CallView, risk: Risk, rules: RuleVerdict) -> Verdict:
        mode = self.mode
        if call.read_only:
            return Verdict("allow", "tool", f"{call.tool} only reads", risk)
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

    def _protected(self, call: CallView) -> str:
        """Why a write lands somewhere always asked about, or "" when it does not."""
        outside = [str(p) for p in call.paths if not p.is_relative_to(self.workspace)]
        if outside:
            return "path outside the workspace: " + ", ".join(outside)
        targets = list(call.paths) if call.tool in EDIT_TOOLS else []
        if call.tool == "bash":
            targets += _write_targets(str(call.args.get("command", "")), self.workspace)
        root = self.workspace
        for path in targets:
            if not path.is_relative_to(root):
                return f"writes outside the workspace: {path}"
            relative = path.relative_to(root).parts
            if relative and relative[0] in (".git", ".whimbrel"):
                return f"writes to {relative[0]}/, which is always asked about"
            for place in self.protected:
                if path.is_relative_to(place) and not root.is_relative_to(place):  # a worktree lives in the data dir
                    return f"writes to Whimbrel's own files ({place}), which is always asked about"
        return ""

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


def _plan_reading(call: CallView) -> bool:
    """Plan mode lets a bash command run that surely only reads (one known reading command, no syntax)."""
    return call.tool == "bash" and isinstance(call.args.get("command"), str) and reads_only(call.args["command"])


def _main_value(call: CallView) -> str | None:
    if call.primary and isinstance(call.args.get(call.primary), str):
        return call.args[call.primary]
    if isinstance(call.args.get("url"), str):
        return call.args["url"]
    return None


ALL_ARGUMENTS_WRITTEN = {"touch", "mkdir", "rm", "rmdir", "tee", "truncate", "shred", "unlink"}
LAST_ARGUMENT_WRITTEN = {"cp", "mv", "ln", "install", "rsync", "scp"}


def _write_targets(command: str, workspace: Path) -> list[Path]:
    """Where a bash line writes, as far as reading it tells: its redirections, and the paths given to
    commands that write them (`touch a b`, `rm x`, `cp src DEST`, wrappers seen through)."""
    from app.permissions.shell import Unparseable
    from app.permissions.wrappers import read_line

    try:
        simple_commands, effective = read_line(command)
    except Unparseable:
        return []
    words: list[str] = []
    for simple in simple_commands:
        words += [word.text for op, word in simple.redirects if op.startswith(">") or op.startswith("&>") or op == "<>"]
    for run in effective:
        argv = run.argv
        name = os.path.basename(argv[0]) if argv else ""
        operands = [a for a in argv[1:] if not a.startswith("-")]
        if name in ALL_ARGUMENTS_WRITTEN:
            words += operands
        elif name in LAST_ARGUMENT_WRITTEN and len(operands) >= 2:
            words.append(operands[-1])
    out = []
    for word in words:
        text = os.path.expanduser(word)
        if text.startswith("/dev/") or (":" in text.split("/")[0] and not os.path.isabs(text)):
            continue  # a device, or another machine's path (`host:dir` of scp and rsync)
        path = Path(text) if os.path.isabs(text) else workspace / text
        out.append(Path(os.path.normpath(path)).resolve())
    return out


def protected_places(workspace: Path, data_dir: Path, config_path: Path) -> list[Path]:
    """Whimbrel's data dir and config file, unless the workspace lies inside one of them."""
    root = Path(workspace).resolve()
    out = []
    for place in (Path(data_dir).expanduser(), Path(config_path).expanduser()):
        resolved = place.resolve()
        if not root.is_relative_to(resolved):
            out.append(resolved)
    return out
