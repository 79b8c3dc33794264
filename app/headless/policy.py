"""The headless approval policy: a permission mode plus --allow / --deny rules decide every tool call.

Nobody can answer an approval prompt in a headless run, so a call that would ask is refused and the
model is told why. `HeadlessPolicy.decide` is the seam: the permission engine (app/permissions/) can
replace it with any callable taking `CallFacts` and returning a `Verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Callable, Literal

from app.permissions.modes import reads_only

Mode = Literal["ask", "accept-edits", "plan", "auto"]
MODES: tuple[Mode, ...] = ("ask", "accept-edits", "plan", "auto")
EDIT_TOOLS = frozenset({"write_file", "edit_file"})
@dataclass(frozen=True)
class Rule:
    """`TOOL` or `TOOL(PATTERN)`: the tool name and the call's subject (command, path) as shell globs."""

    tool: str
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule:
        """`bash`, `bash(git *)`, `write_file(docs/*)`, `mcp__git__*`; ValueError for a malformed rule."""
        text = text.strip()
        if "(" not in text:
            if not text or ")" in text:
                raise ValueError(f"malformed rule {text!r}: expected TOOL or TOOL(PATTERN)")
            return cls(text)
        tool, _, rest = text.partition("(")
        if not tool.strip() or not rest.endswith(")"):
            raise ValueError(f"malformed rule {text!r}: expected TOOL or TOOL(PATTERN)")
        return cls(tool.strip(), rest[:-1])

    def matches(self, name: str, subject: str) -> bool:
        return fnmatchcase(name, self.tool) and (self.pattern is None or fnmatchcase(subject, self.pattern))

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"


@dataclass(frozen=True)
class CallFacts:
    """What the policy judges: the tool, what the call acts on, and whether it only reads."""

    name: str
    subject: str  # the bash command, the path, the search ...
    read_only: bool
    outside_workspace: tuple[str, ...] = ()

    @property
    def only_reads(self) -> bool:
        """A reading tool, or a bash command that surely only reads."""
        return self.read_only or (self.name == "bash" and reads_only(self.subject))


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str


Decide = Callable[[CallFacts], Verdict]


@dataclass
class HeadlessPolicy:
    """Deny rules first, then the workspace boundary, then allow rules, then the mode."""

    mode: Mode = "ask"
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)

    def decide(self, call: CallFacts) -> Verdict:
        for rule in self.deny:
            if rule.matches(call.name, call.subject):
                return Verdict(False, f"the rule --deny {rule} matches it")
        if call.outside_workspace:
            return Verdict(False, "a headless run acts only inside the workspace, and this call reaches "
                                  + ", ".join(call.outside_workspace))
        for rule in self.allow:
            if rule.matches(call.name, call.subject):
                return Verdict(True, f"allowed by the rule --allow {rule}")
        return self._by_mode(call)

    def _by_mode(self, call: CallFacts) -> Verdict:
        if call.only_reads:
            return Verdict(True, f"mode {self.mode}: the call only reads")
        if self.mode == "auto":
            return Verdict(True, "mode auto: every call in the workspace runs")
        if self.mode == "accept-edits" and call.name in EDIT_TOOLS:
            return Verdict(True, "mode accept-edits: file edits in the workspace run")
        if self.mode == "plan":
            return Verdict(False, f"mode plan only reads and plans, so {call.name} does not run; "
                                  "describe the change instead of making it")
        return Verdict(False, f"{call.name} would need the user's approval, and nobody can give it in a "
                              f"headless run (mode {self.mode}); the user can rerun with --allow {call.name} "
                              "or a more permissive --mode")
