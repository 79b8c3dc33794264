"""The pipeline's policy gate for one workstream: hooks, rules, mode, risk, sandbox and audit.

The session asks `screen()` about every prepared call and gets a Verdict (allow / ask / deny with
its reason); `record()` writes the audit row once the call ended; `sandbox_for()` says how a
command is confined. Nothing runs a tool around this, so nothing bypasses it.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from app.permissions import audit
from app.permissions.claude_names import tool_payload, whimbrel_input
from app.permissions.gate import CallView, Gate, Verdict
from app.permissions.hooks import CONTEXT_EVENTS, Hook, run_hooks
from app.permissions.modes import Mode
from app.permissions.policy import Policy
from app.permissions.risk import Risk
from app.permissions.rules import Rule, RuleError
from app.sandbox import bwrap
from tools.arguments import validate_arguments
from tools.errors import ToolError

AuditSink = Callable[[audit.AuditRow], Awaitable[None]]
RuleSaver = Callable[[list[str], str], Awaitable[str]]  # (specs, scope) -> where it was written
log = logging.getLogger("whimbrel")


GENERIC_ADVICE = "--allow {tool} (or a narrower rule such as --allow 'bash(git *)') or a more permissive --mode"


def nobody_text(template: str, tool: str, advice: str = "") -> str:
    """An unattended refusal's words (`template` with {advice} and {tool} filled in): what would let the call
    run, from the verdict when it knows better than the generic advice (an edit rule for a redirection…)."""
    return template.replace("{advice}", advice or GENERIC_ADVICE).replace("{tool}", tool)


@dataclass(eq=False)  # compared by identity: the app keeps its guards in a WeakSet
class CallGuard:
    """One workstream's gate. `audit_sink` stores rows; `save_rules` writes rules of project/user scope."""

    gate: Gate
    hooks: list[Hook] = field(default_factory=list)
    audit_sink: AuditSink | None = None
    save_rules: RuleSaver | None = None
    sandbox_level: str = "full"  # what bash runs in: read-only | workspace-write | full
    hidden: list[Path] = field(default_factory=list)
    workstream_rules: list[Rule] = field(default_factory=list)
    on_workstream_rules: Callable[[list[dict[str, str]]], Awaitable[None]] | None = None
    notices: list[str] = field(default_factory=list)  # hook failures etc. for the user
    context: list[str] = field(default_factory=list)  # what SessionStart / UserPromptSubmit hooks add for the model
    session_started: bool = False  # SessionStart hooks ran for this workstream's session
    agent: str | None = None  # set on a sub-agent's guard: its audit rows name it
    own_rules: list[Rule] = field(default_factory=list)  # a sub-agent's "always" answers: its own, never its parent's
    unattended: str | None = None  # headless / mcp serve: what would ask is refused, and this says why ({tool})

    def for_sub_agent(self, name: str) -> CallGuard:
        """A sub-agent's guard: the very same gate (rules, mode), hooks, audit and sandbox as its
        parent's, so a restriction of the parent (now or later) binds the child too; its audit rows name
        it. What the user allows "always" inside it stays its own (`own_rules`): it never widens the parent."""
        return dataclasses.replace(self, agent=name, notices=[], context=[], own_rules=list(self.own_rules),
                                   workstream_rules=list(self.workstream_rules))

    def _gate(self) -> Gate:
        """The gate that decides here: the shared one, plus a sub-agent's own rules when it has some."""
        if not self.own_rules:
            return self.gate
        return dataclasses.replace(self.gate, policy=self.gate.policy.with_rules(self.own_rules))

    def in_workspace(self, workspace: Path) -> CallGuard:
        """The same rules, mode, hooks and audit for a workstream that now works elsewhere (its git
        worktree): its paths are judged there and the sandbox binds that tree."""
        policy = copy.copy(self.gate.policy)
        policy.workspace = Path(workspace).resolve()
        return dataclasses.replace(self, gate=dataclasses.replace(self.gate, policy=policy))

    @classmethod
    def permissive_default(cls, workspace: Path) -> CallGuard:
        """No rules, ask mode, no sandbox: what a Session built without a guard (tests) uses."""
        return cls(Gate(Policy(workspace=workspace), sandboxed=False))

    @property
    def mode(self) -> Mode:
        return self.gate.mode

    @property
    def sandboxed(self) -> bool:
        return self.sandbox_level != "full" and bwrap.available() is not None

    def sandbox_label(self, network: bool = False) -> str:
        if not self.sandboxed:
            return "none"
        return self.spec(network).label

    def spec(self, network: bool) -> bwrap.SandboxSpec:
        return bwrap.SandboxSpec(self.sandbox_level, self.gate.workspace, network, list(self.hidden))

    # -- before the call -----------------------------------------------------------------
    async def screen(self, prepared: Any, workstream_id: str = "") -> Verdict:
        """Hooks first (they may change the arguments), then the gate; the strongest answer wins.
        Unattended, a call that would ask is refused, saying what would have asked and why nobody can."""
        verdict = await self._screen(prepared, workstream_id)
        if self.unattended and verdict.outcome == "ask":
            nobody = nobody_text(self.unattended, prepared.call.name.strip(), verdict.advice)
            return dataclasses.replace(verdict, outcome="deny", why=f"{verdict.why}; {nobody}")
        return verdict

    async def _screen(self, prepared: Any, workstream_id: str = "") -> Verdict:
        spec = prepared.spec
        view = CallView(prepared.call.name.strip(), prepared.args or {}, list(prepared.resolved_paths.values()),
                        read_only=bool(spec.auto_approve) if spec else False,
                        primary=spec.primary_key if spec else None, path_args=tuple(spec.path_args) if spec else (),
                        claims_read_only=bool(getattr(spec, "claims_read_only", False)),
                        changes_nothing=bool(spec and spec.read_only and spec.builtin))
        outcome = await run_hooks(self.hooks, "PreToolUse", {
            "session_id": workstream_id, "transcript_path": "", "permission_mode": self.mode,
            **tool_payload(view.tool, view.args)}, self.gate.workspace, tool=view.tool)
        self.notices.extend(outcome.failures)
        if outcome.updated_input is not None and spec is not None:
            updated = whimbrel_input(view.tool, outcome.updated_input, view.args)
            try:
                validate_arguments(updated, spec)
            except ToolError as error:
                return Verdict("deny", "hook", f"the hook `{outcome.hook}` changed the arguments into invalid "
                               f"ones: {error}", Risk("low", "not run"))
            prepared.args = dict(updated)
            prepared.preview = prepared.preview if view.tool != "bash" else str(prepared.args.get("command", ""))
            view.args = prepared.args
            view.paths = self._repoint(prepared, spec)
        # on a thread: a folder read whole (`grep -r .`) or a hard link has the gate walk the workspace
        verdict = await asyncio.to_thread(self._gate().decide, view)
        if outcome.decision == "deny":
            return Verdict("deny", "hook", f"blocked by the hook `{outcome.hook}`: {outcome.reason}", verdict.risk)
        if outcome.decision == "ask" and verdict.outcome == "allow":
            return Verdict("ask", "hook", f"the hook `{outcome.hook}` asks: {outcome.reason}".rstrip(": "),
                           verdict.risk, suggestions=verdict.suggestions)
        if outcome.decision == "allow" and verdict.outcome == "ask" and verdict.source in ("mode", "sandbox", "rule") \
                and not verdict.needs_override:
            return Verdict("allow", "hook", f"allowed by the hook `{outcome.hook}`"
                           + (f": {outcome.reason}" if outcome.reason else ""), verdict.risk)
        return verdict

    def unreadable(self, path: Path) -> str:
        """Why a tool reading many files at once (search) must leave `path` out, or "" (see Gate.unreadable)."""
        return self._gate().unreadable(path)

    def _repoint(self, prepared: Any, spec: Any) -> list[Path]:
        """Path arguments resolved again after a hook changed them: the gate judges where the call now acts."""
        from tools.workspace import resolve_path

        prepared.resolved_paths = {key: resolve_path(prepared.args[key], self.gate.workspace)[0]
                                   for key in spec.path_args if isinstance(prepared.args.get(key), str)}
        return list(prepared.resolved_paths.values())

    async def after(self, prepared: Any, output: str, is_error: bool, workstream_id: str = "") -> str:
        """PostToolUse hooks: exit 2 (or a "block" decision) adds their words for the model to the result."""
        outcome = await run_hooks(self.hooks, "PostToolUse", {
            "session_id": workstream_id, "transcript_path": "", "permission_mode": self.mode,
            **tool_payload(prepared.call.name.strip(), prepared.args or {}),
            "tool_response": {"output": output, "is_error": is_error}}, self.gate.workspace,
            tool=prepared.call.name.strip())
        self.notices.extend(outcome.failures)
        extra = [f"[hook `{outcome.hook}`: {outcome.reason}]"] if outcome.decision == "deny" and outcome.reason else []
        extra += [f"[hook context: {text}]" for text in outcome.context]
        return "\n".join([output, *extra]) if extra else output

    async def event(self, event: str, payload: dict[str, Any], workstream_id: str = "",
                    matcher_on: str | None = None) -> str | None:
        """UserPromptSubmit, Stop, SessionStart, Notification hooks; returns why a hook blocked, if one did.
        Context they give for the model (additionalContext, or plain stdout) waits in `context`.
        `matcher_on`: what matchers are matched against (SessionStart's source, Notification's type)."""
        outcome = await run_hooks(self.hooks, event, {"session_id": workstream_id, "transcript_path": "",
                                                      "permission_mode": self.mode, **payload}, self.gate.workspace,
                                  tool=matcher_on)
        self.notices.extend(outcome.failures)
        if event in CONTEXT_EVENTS:
            self.context.extend(outcome.context)
        if outcome.decision != "deny":
            return None
        return outcome.reason or f"blocked by the hook `{outcome.hook}`"

    def has_hooks(self, event: str) -> bool:
        return any(h.event == event for h in self.hooks)

    # -- answers from the modal ----------------------------------------------------------
    async def remember(self, specs: list[str], scope: str) -> str:
        """Save "Always" rules; returns where they were written (or the reason they were not)."""
        good: list[str] = []
        for spec in specs:
            try:
                Rule(spec, "allow")
                good.append(spec)
            except RuleError as error:
                return f"not saved: {spec}: {error}"
        if not good:
            return "not saved: no rule"
        if scope == "workstream" and self.agent is not None:
            self.own_rules += [Rule(s, "allow", "workstream", f"sub-agent {self.agent}") for s in good]
            return f"this sub-agent ({self.agent}) only, not its parent"
        if scope == "workstream":
            new = [Rule(s, "allow", "workstream", "this workstream") for s in good]
            self.workstream_rules += new
            self.gate.policy = self.gate.policy.with_rules(new)
            if self.on_workstream_rules is not None:
                await self.on_workstream_rules([{"rule": r.spec, "decision": "allow"} for r in self.workstream_rules])
            return "this workstream (kept with the conversation)"
        if self.save_rules is None:
            return "not saved: this session cannot write rule files"
        return await self.save_rules(good, scope)

    def replace_policy(self, policy: Policy) -> None:
        """New rules from disk (a saved rule, an accepted project file); the workstream's stay."""
        self.gate.policy = policy.with_rules(self.workstream_rules)

    # -- after the call ------------------------------------------------------------------
    async def record(self, prepared: Any, verdict: Verdict | None, decision: str, status: str,
                     duration: float | None, workstream_id: str, decided_by: str | None = None,
                     network: bool = False) -> None:
        """Write the audit row of one call (errors go to the log: the call itself is done)."""
        tool = prepared.call.name.strip()
        await self.record_row(call_id=prepared.call.id, tool=tool,
                              args=prepared.args if prepared.args is not None else prepared.call.arguments,
                              verdict=verdict, decision=decision, status=status, duration=duration,
                              workstream_id=workstream_id, decided_by=decided_by, sandboxed=tool == "bash",
                              network=network)

    async def record_row(self, *, call_id: str, tool: str, args: Any, verdict: Verdict | None, decision: str,
                         status: str, duration: float | None, workstream_id: str, decided_by: str | None = None,
                         sandboxed: bool = False, network: bool = False) -> None:
        """An audit row for anything that acts: a call, or a watch's poll (`sandboxed`: a command ran)."""
        if self.audit_sink is None:
            return
        risk = verdict.risk if verdict else None
        row = audit.AuditRow(
            workstream_id=workstream_id, call_id=call_id, tool=tool,
            arguments=json.dumps(audit.redact_arguments(args), ensure_ascii=False, default=str),
            decision=decision, decided_by=decided_by or (verdict.decided_by if verdict else "not run: invalid call"),
            mode=self.mode, risk=f"{risk.level}: {risk.reason}" if risk else "",
            sandbox=self.sandbox_label(network) if sandboxed else "n/a",
            status=status, duration_ms=None if duration is None else duration * 1000, agent=self.agent,
            created_at=time.time())
        try:
            await self.audit_sink(row)
        except Exception:  # the audit must never break a turn; the failure is logged
            log.exception("writing the audit row of %s failed", row.tool)

    def wrapper(self, tool: str, network: bool, outside: bool = False) -> Callable[[list[str]], Any] | None:
        """How to confine a command (None: it runs as is)."""
        if tool != "bash" or outside or not self.sandboxed:
            return None
        spec = self.spec(network)
        return lambda argv: bwrap.wrap(argv, spec)

    def blocked(self, output: str, network: bool) -> str | None:
        """Did the sandbox stop this failed command? A sentence, or None."""
        if not self.sandboxed:
            return None
        return bwrap.blocked_by_sandbox(output, self.spec(network))
