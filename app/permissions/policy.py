"""The rules of every scope together: loaded and checked, then asked about each call.

Precedence is deny, then ask, then allow, whatever the scope. A bash call is decided per simple
command: it is allowed only when every command of the line is, and denied when any one is. A
rule that is broken (does not parse, fails one of its `match` / `not_match` examples, or is
shadowed by a broader deny) is reported with its file, line and reason and is not applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from app.permissions.rules import DECISIONS, Decision, Rule, RuleError, Scope, names_path_example, path_kind
from app.permissions.shell import Unparseable, parse
from app.permissions.wrappers import Effective, effective_commands, read_line


PATH_KIND_TOOLS = {"read_file", "write_file", "edit_file", "search"}  # a path allow rule can allow these


@dataclass
class Problem:
    """A rule that is not applied, and why."""

    spec: str
    where: str
    reason: str
    scope: Scope = "user"

    def __str__(self) -> str:
        return f"{self.where}: {self.spec}: {self.reason}"


@dataclass
class CallFacts:
    """What a rule can look at in a call: the tool, its command / paths / main value."""

    tool: str
    command: str | None = None  # bash
    paths: list[Path] = field(default_factory=list)  # resolved path arguments
    value: str | None = None  # the main argument of any other tool
    reads: list[Path] = field(default_factory=list)  # every file the call reads (any tool), for path rules
    writes: list[Path] = field(default_factory=list)  # every file it writes


@dataclass
class RuleVerdict:
    """What the rules say: a decision (None: no rule covers the call), the rules that decided, and
    `why`, a sentence for the user and the model."""

    decision: Decision | None
    rules: list[Rule] = field(default_factory=list)
    why: str = ""
    unparseable: str | None = None
    commands: list[Effective] = field(default_factory=list)


def line_of(text: str, needle: str, nth_header: int | None = None, header: str = "") -> int:
    """The 1-based line where `needle` is written (else the nth `header`), for messages."""
    lines = text.splitlines()
    quoted = [f'"{needle}"', f"'{needle}'"]
    for number, line in enumerate(lines, 1):
        if any(q in line for q in quoted):
            return number
    if header and nth_header is not None:
        seen = -1
        for number, line in enumerate(lines, 1):
            if line.strip() == header:
                seen += 1
                if seen == nth_header:
                    return number
    return 0


def rules_from_table(table: dict[str, Any], *, scope: Scope, path: Path | None, text: str = "",
                     header: str = "[[policy.rules]]") -> tuple[list[Rule], list[Problem]]:
    """Rules from a `[policy]`-like table: `allow/ask/deny = [...]` lists and `rules = [{...}]` entries."""
    rules: list[Rule] = []
    problems: list[Problem] = []
    file = str(path) if path else scope

    def add(spec: Any, decision: Any, extra: dict[str, Any], where: str) -> None:
        if not isinstance(spec, str):
            problems.append(Problem(repr(spec), where, "a rule must be a string such as \"bash(git status)\"", scope))
            return
        if decision not in DECISIONS:
            problems.append(Problem(spec, where, f"decision must be allow, ask or deny, got {decision!r}", scope))
            return
        try:
            rule = Rule(spec, decision, scope, where, match=list(extra.get("match", [])),
                        not_match=list(extra.get("not_match", [])), network=bool(extra.get("network", False)))
        except (RuleError, TypeError) as error:
            problems.append(Problem(spec, where, str(error), scope))
            return
        rules.append(rule)

    for decision in DECISIONS:
        for spec in table.get(decision, []) or []:
            add(spec, decision, {}, f"{file}:{line_of(text, spec) if isinstance(spec, str) else 0}")
    for index, entry in enumerate(table.get("rules", []) or []):
        if not isinstance(entry, dict):
            problems.append(Problem(repr(entry), f"{file}:0", "each [[rules]] entry must be a table", scope))
            continue
        spec = entry.get("rule", "")
        line = line_of(text, spec, index, header) if isinstance(spec, str) else 0
        unknown = set(entry) - {"rule", "decision", "match", "not_match", "network"}
        if unknown:
            problems.append(Problem(str(spec), f"{file}:{line}", f"unknown key(s) {', '.join(sorted(unknown))} "
                                    "(known: rule, decision, match, not_match, network)", scope))
            continue
        add(spec, entry.get("decision", "allow"), entry, f"{file}:{line}")
    return rules, problems


class Policy:
    """Every applied rule, and the problems of those that are not."""

    def __init__(self, rules: Iterable[Rule] = (), problems: Iterable[Problem] = (),
                 workspace: Path | None = None) -> None:
        self.workspace = (workspace or Path.cwd()).resolve()
        self.problems: list[Problem] = list(problems)
        self.rules: list[Rule] = []
        candidates = list(rules)
        for rule in candidates:
            reason = self._examples_fail(rule) or self._shadowed(rule, candidates)
            if reason:
                self.problems.append(Problem(rule.spec, rule.where, reason, rule.scope))
            else:
                self.rules.append(rule)

    def with_rules(self, extra: Iterable[Rule]) -> Policy:
        """This policy plus more rules (a workstream's answers); the checks run on the new ones."""
        merged = Policy.__new__(Policy)
        merged.workspace = self.workspace
        merged.problems = list(self.problems)
        merged.rules = list(self.rules)
        for rule in extra:
            reason = self._examples_fail(rule) or self._shadowed(rule, merged.rules + [rule])
            if reason:
                merged.problems.append(Problem(rule.spec, rule.where, reason, rule.scope))
            else:
                merged.rules.append(rule)
        return merged

    # -- load-time checks ----------------------------------------------------------------
    def _examples_fail(self, rule: Rule) -> str | None:
        for example in rule.match:
            if not self._rule_covers(rule, example):
                return f"its match example {example!r} is not matched by the pattern"
        for example in rule.not_match:
            if self._rule_covers(rule, example):
                return f"its not_match example {example!r} is matched by the pattern"
        return None

    def _rule_covers(self, rule: Rule, example: str) -> bool:
        if rule.tool == "bash":
            try:
                commands = effective_commands(parse(example))
            except Unparseable:
                return False
            return bool(commands) and all(rule.matches_command(c) for c in commands)
        if names_path_example(rule.tool):
            path = Path(example).expanduser()
            path = (path if path.is_absolute() else self.workspace / path).resolve()
            return rule.matches_path(path, self.workspace)
        return rule.matches_value(example)

    def _shadowed(self, rule: Rule, others: list[Rule]) -> str | None:
        """An allow or ask rule that a broader deny always beats can never take effect."""
        if rule.decision == "deny":
            return None
        for other in others:
            if other is rule or other.decision != "deny" or not other.names_tool(rule.tool):
                continue
            if other.pattern is None or (rule.pattern is not None and self._rule_covers(other, rule.pattern)):
                return f"shadowed by the broader rule deny {other.spec} ({other.where or other.scope}): it can never apply"
        return None

    # -- deciding ------------------------------------------------------------------------
    def _rules_for(self, tool: str) -> list[Rule]:
        """The rules naming `tool`, by exact name from an index kept per rule list (globs checked each time)."""
        index = getattr(self, "_index", None)
        if index is None or index[0] is not self.rules or index[1] != len(self.rules):
            exact: dict[str, list[Rule]] = {}
            globs = [r for r in self.rules if any(c in r.tool for c in "*?[")]
            for rule in self.rules:
                if rule not in globs:
                    exact.setdefault(rule.tool, []).append(rule)
            index = self._index = (self.rules, len(self.rules), exact, globs)
        return index[2].get(tool, []) + [r for r in index[3] if r.names_tool(tool)]

    def decide(self, facts: CallFacts) -> RuleVerdict:
        """What the rules say about one call: its tool's rules, then the path rules on what it reads and
        writes (a path deny or ask beats a tool allow; a file tool no tool rule covers is allowed when
        path allow rules cover every path it touches)."""
        rules = self._rules_for(facts.tool)
        if facts.tool == "bash" and facts.command is not None:
            verdict = self._decide_bash(rules, facts.command)
        else:
            verdict = _strongest([r for r in rules if self._matches(r, facts)], subject=f"{facts.tool}")
        return self._with_paths(verdict, facts)

    # -- path rules ----------------------------------------------------------------------
    def _with_paths(self, verdict: RuleVerdict, facts: CallFacts) -> RuleVerdict:
        if not facts.reads and not facts.writes:
            return verdict
        for wanted in ("deny", "ask"):
            if verdict.decision == wanted:
                return verdict
            found = self.path_verdict(facts.reads, facts.writes, wanted)
            if found is not None:
                found.commands = verdict.commands
                return found
        if verdict.decision is None and facts.tool in PATH_KIND_TOOLS and not verdict.unparseable:
            covering = self.path_allows(facts.reads, facts.writes, facts.tool)
            if covering:
                return RuleVerdict("allow", covering, "allowed by " + ", ".join(r.label for r in covering))
        return verdict

    def path_verdict(self, reads: list[Path], writes: list[Path], decision: Decision) -> RuleVerdict | None:
        """The first path rule of `decision` matching a read (read rules) or a write (edit rules)."""
        verb = {"deny": "denied", "ask": "asked about"}.get(decision, "allowed")
        for rule, kind in self._path_rules(decision):
            for path in (writes if kind == "edit" else reads):
                if rule.matches_path(path, self.workspace):
                    what = "writing" if kind == "edit" else "reading"
                    return RuleVerdict(decision, [rule], f"{what} {_shown(path, self.workspace)} is {verb} by "
                                       f"{rule.label}")
        return None

    def _path_rules(self, decision: Decision) -> list[tuple[Rule, str]]:
        """The rules of `decision` that bind paths for every tool, with their kind (kept per rule list)."""
        index = getattr(self, "_path_index", None)
        if index is None or index[0] is not self.rules or index[1] != len(self.rules):
            kinds = {d: [(r, k) for r in self.rules if r.decision == d and (k := path_kind(r))] for d in DECISIONS}
            index = self._path_index = (self.rules, len(self.rules), kinds)
        return index[2][decision]

    def path_allows(self, reads: list[Path], writes: list[Path], tool: str | None = None) -> list[Rule]:
        """The allow rules covering every path: writes by `edit` rules, reads by `read` or `edit` rules (and
        `tool`'s own path rules); [] when some path is left uncovered."""
        used: list[Rule] = []
        for paths, kinds in ((writes, ("edit",)), (reads, ("read", "edit"))):
            for path in paths:
                rule = next((r for r in self.rules if r.decision == "allow" and path_kind(r, tool) in kinds
                             and r.matches_path(path, self.workspace)), None)
                if rule is None:
                    return []
                if rule not in used:
                    used.append(rule)
        return used

    def _matches(self, rule: Rule, facts: CallFacts) -> bool:
        """Paths: an allow must cover every path of the call, a deny or ask any one of them."""
        if rule.pattern is None:
            return True
        if facts.paths:
            hits = (rule.matches_path(p, self.workspace) for p in facts.paths)
            return all(hits) if rule.decision == "allow" else any(hits)
        return rule.matches_value(facts.value or "")

    def _decide_bash(self, rules: list[Rule], command: str) -> RuleVerdict:
        try:
            commands = list(read_line(command)[1])
        except Unparseable as error:
            deny = [r for r in rules if r.decision == "deny" and r.pattern is None]
            if deny:
                return RuleVerdict("deny", deny[:1], f"denied by {deny[0].label}")
            return RuleVerdict(None, [], f"the command could not be read ({error}), so it is asked about",
                               unparseable=str(error))
        if not commands:
            return RuleVerdict(None, [], "", commands=[])
        per_part = [(c, _strongest([r for r in rules if r.matches_command(c)], subject=_show(c))) for c in commands]
        for wanted in ("deny", "ask"):
            for part, verdict in per_part:
                if verdict.decision == wanted:
                    verdict.why = f"`{_show(part)}` is {'denied' if wanted == 'deny' else 'asked about'} by " \
                                  f"{verdict.rules[0].label}"
                    verdict.commands = commands
                    return verdict
        uncovered = [part for part, verdict in per_part if verdict.decision is None and not part.probe]
        if uncovered:
            allowed = [r for _p, v in per_part for r in v.rules]
            opaque = [part for part in uncovered if part.opaque]
            why = f"no rule allows `{_show(uncovered[0])}`"
            if opaque:
                why = f"`{_show(opaque[0])}` cannot be allowed by a rule: {opaque[0].opaque[0]}"
            if allowed:
                why += f" (other parts are allowed by {', '.join(sorted({r.label for r in allowed}))})"
            return RuleVerdict(None, allowed, why, commands=commands)
        used = []
        for _p, verdict in per_part:
            for rule in verdict.rules:
                if rule not in used:
                    used.append(rule)
        return RuleVerdict("allow", used, "allowed by " + ", ".join(r.label for r in used), commands=commands)


def _strongest(matched: list[Rule], subject: str) -> RuleVerdict:
    for decision in DECISIONS:
        hits = [r for r in matched if r.decision == decision]
        if hits:
            verb = {"deny": "denied", "ask": "asked about", "allow": "allowed"}[decision]
            return RuleVerdict(decision, hits[:1], f"{subject} is {verb} by {hits[0].label}")
    return RuleVerdict(None, [], "")


def _shown(path: Path, workspace: Path) -> str:
    return path.relative_to(workspace).as_posix() if path.is_relative_to(workspace) else str(path)


def _show(command: Effective) -> str:
    text = " ".join(command.argv) or (command.source.text if command.source is not None else "")
    return text or "(empty command)"
