"""Hooks in Claude Code's format: commands run on events, given the event as JSON on stdin.

    [[hooks.PreToolUse]]
    matcher = "bash|write_file"        # a regex on the tool name ("" or "*": every tool)
    [[hooks.PreToolUse.hooks]]
    type = "command"
    command = "~/.whimbrel/hooks/no-rm.sh"
    timeout = 10                       # seconds (default 60)

Exit 0: stdout may hold JSON (`hookSpecificOutput.permissionDecision` allow / deny / ask with
`permissionDecisionReason`, `updatedInput`; or the older `decision: approve|block` + `reason`).
Exit 2: the call is blocked and stderr goes to the model. Any other exit: the hook failed, the user
is told, the call goes on. Events carry Claude Code's tool names and input keys
(app/permissions/claude_names.py); a matcher may use those or Whimbrel's own names. For
`SessionStart` and `UserPromptSubmit`, plain stdout of exit 0 is context for the model, as in Claude Code.

Every hook starts from the clean environment (app/sandbox/jail.py: no API keys) under the sandbox's
rlimits. A user hook (from the user's own config) runs outside the sandbox, as the user wrote it; a
project hook (from the workspace's files, written by whoever wrote the repository) runs inside the
hardened sandbox, the workspace writable and the network off, and does not run at all where there is
no sandbox (the user is told).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.permissions.claude_names import matcher_names
from app.sandbox import bwrap, jail

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "Notification")
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit")  # their plain stdout is context for the model
DEFAULT_TIMEOUT = 60.0


@dataclass
class Hook:
    event: str
    matcher: str
    command: str
    timeout: float = DEFAULT_TIMEOUT
    scope: str = "user"  # user | project

    def matches(self, tool: str) -> bool:
        if self.matcher in ("", "*"):
            return True
        names = matcher_names(tool)
        try:
            return any(re.fullmatch(self.matcher, n) for n in names)
        except re.error:
            return self.matcher in names


@dataclass
class HookOutcome:
    """What the hooks of one event said. `decision` None: they did not decide."""

    decision: str | None = None  # allow | deny | ask
    reason: str = ""
    hook: str = ""  # the command that decided
    updated_input: dict[str, Any] | None = None
    failures: list[str] = field(default_factory=list)  # hooks that broke (shown to the user)
    context: list[str] = field(default_factory=list)  # additionalContext for the model


def parse_hooks(table: dict[str, Any], scope: str, where: str) -> tuple[list[Hook], list[str]]:
    """Hooks from a `[hooks]` table; problems are sentences naming `where`."""
    hooks: list[Hook] = []
    problems: list[str] = []
    for event, entries in (table or {}).items():
        if event not in EVENTS:
            problems.append(f"{where}: unknown hook event {event!r} (known: {', '.join(EVENTS)})")
            continue
        for entry in entries if isinstance(entries, list) else [entries]:
            if not isinstance(entry, dict) or not isinstance(entry.get("hooks", []), list):
                problems.append(f"{where}: each [[hooks.{event}]] needs a hooks = [{{type, command}}] list")
                continue
            matcher = str(entry.get("matcher", ""))
            for spec in entry.get("hooks", []):
                if not isinstance(spec, dict) or spec.get("type", "command") != "command" \
                        or not isinstance(spec.get("command"), str):
                    problems.append(f"{where}: a {event} hook must be a table with type = \"command\" and command")
                    continue
                timeout = spec.get("timeout", DEFAULT_TIMEOUT)
                hooks.append(Hook(event, matcher, spec["command"],
                                  float(timeout) if isinstance(timeout, (int, float)) else DEFAULT_TIMEOUT, scope))
    return hooks, problems


class NoSandbox(RuntimeError):
    """A project hook where the sandbox cannot run: it is not run."""


def _launch(hook: Hook, cwd: Path) -> jail.Launch:
    env = jail.clean_env(CLAUDE_PROJECT_DIR=str(cwd), WHIMBREL_PROJECT_DIR=str(cwd))
    argv = ["/bin/sh", "-c", hook.command]
    if hook.scope != "project":
        return jail.plain(argv, env)
    if bwrap.available() is None:
        raise NoSandbox(f"it is a project hook and the sandbox cannot run here ({bwrap.unavailable_reason()})")
    return bwrap.wrap(argv, bwrap.SandboxSpec("workspace-write", Path(cwd), network=False), env=env)


async def _run_one(hook: Hook, payload: dict[str, Any], cwd: Path) -> tuple[int | None, str, str]:
    """(exit code or None on timeout, stdout, stderr) of one hook command."""
    launch = _launch(hook, cwd)
    try:
        proc = await asyncio.create_subprocess_exec(
            *launch.argv, cwd=cwd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, **launch.kwargs())
    finally:
        launch.started()
    try:
        out, err = await asyncio.wait_for(proc.communicate(json.dumps(payload).encode()), hook.timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as stop:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        await proc.wait()
        if isinstance(stop, asyncio.CancelledError):
            raise
        return None, "", ""
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def _read_json(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _apply(outcome: HookOutcome, hook: Hook, data: dict[str, Any]) -> None:
    specific = data.get("hookSpecificOutput") if isinstance(data.get("hookSpecificOutput"), dict) else {}
    decision = specific.get("permissionDecision") or {"approve": "allow", "block": "deny"}.get(data.get("decision"))
    reason = specific.get("permissionDecisionReason") or data.get("reason") or ""
    if data.get("continue") is False:
        decision, reason = "deny", data.get("stopReason") or reason or "a hook stopped the call"
    if isinstance(specific.get("updatedInput"), dict):
        outcome.updated_input = specific["updatedInput"]
    if isinstance(specific.get("additionalContext"), str):
        outcome.context.append(specific["additionalContext"])
    if decision in ("allow", "deny", "ask") and _stronger(decision, outcome.decision):
        outcome.decision, outcome.reason, outcome.hook = decision, str(reason), hook.command


def _stronger(new: str, old: str | None) -> bool:
    order = {None: -1, "allow": 0, "ask": 1, "deny": 2}
    return order[new] > order[old]


async def run_hooks(hooks: list[Hook], event: str, payload: dict[str, Any], cwd: Path,
                    tool: str | None = None) -> HookOutcome:
    """Run every hook of `event` that matches `tool`, in parallel; the strongest decision wins."""
    chosen = [h for h in hooks if h.event == event and (tool is None or h.matches(tool))]
    outcome = HookOutcome()
    if not chosen:
        return outcome
    payload = {"hook_event_name": event, "cwd": str(cwd), **payload}
    results = await asyncio.gather(*(_run_one(h, payload, cwd) for h in chosen), return_exceptions=True)
    for hook, result in zip(chosen, results):
        if isinstance(result, BaseException):
            if isinstance(result, asyncio.CancelledError):
                raise result
            outcome.failures.append(f"hook `{hook.command}` could not start: {result}")
            continue
        code, out, err = result
        if code is None:
            outcome.failures.append(f"hook `{hook.command}` did not finish within {hook.timeout:g}s and was stopped")
        elif code == 2:
            if _stronger("deny", outcome.decision):
                outcome.decision, outcome.hook = "deny", hook.command
                outcome.reason = err.strip() or f"blocked by the hook `{hook.command}`"
        elif code == 0:
            data = _read_json(out)
            if data is not None:
                _apply(outcome, hook, data)
            elif event in CONTEXT_EVENTS and out.strip():
                outcome.context.append(out.strip())
        else:
            outcome.failures.append(f"hook `{hook.command}` failed with exit code {code}: {err.strip()[:300]}")
    return outcome
