"""`!command` typed in the prompt: run through the same pipeline as the agent's `bash` (prepare,
the policy gate and approval, the sandbox, limits), shown as a tool card, and kept in the
conversation as a user message with the output, so the model sees it on the next turn."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid

from app.engine import events as ev
from app.vocabulary.messages import Message, ToolCall
from app.engine import gating
from tools.pipeline import execute, prepare


def is_user_command(text: str) -> bool:
    return text.startswith("!") and bool(text[1:].strip())


def conversation_text(command: str, output: str, is_error: bool) -> str:
    """How the command and its output read in the conversation (the model's next context)."""
    state = "failed" if is_error else "ran"
    fence = "`" * max(3, max((len(run) for run in output.split("\n") if set(run) == {"`"}), default=0) + 1)
    return f"I {state} this shell command myself: `{command}`\n\n{fence}\n{output.rstrip()}\n{fence}"


async def run_user_command(session, command: str) -> None:
    """Run `command` as a bash call asked for by the user; persist what it printed."""
    call = ToolCall(id=f"user_{uuid.uuid4().hex[:12]}", name="bash", arguments=json.dumps({"command": command}))
    item = prepare(call, session.registry, session.tool_context)
    session.emit(ev.ToolCallAdded(call.id, "bash", item.preview, call.arguments))
    session.emit(ev.StateChanged("running"))
    try:
        output, is_error = await _approved_run(session, item)
    except asyncio.CancelledError:
        session.emit(ev.ToolCallUpdated(call.id, "error", "cancelled"))
        session.emit(ev.StateChanged("idle"))
        raise
    if output is not None:
        session.emit(ev.ToolCallUpdated(call.id, "error" if is_error else "done"))
        session.emit(ev.ToolResultReady(call.id, output, is_error))
        await session._persist(Message(role="user", content=conversation_text(command, output, is_error)))
    session.emit(ev.StateChanged("idle"))


async def _approved_run(session, item) -> tuple[str | None, bool]:
    """(output, is_error) after the policy gate and approval; (None, True) when it was refused or
    denied. Decided like the agent's calls (rules, mode, risk, hooks) and audited the same way."""
    if item.error:
        return item.error, True
    late = await gating.read_off_loop(item)  # the line is read on a thread; the gate finds it read
    verdict = gating.late_verdict(late, session.guard.unattended, item) if late else \
        await session.guard.screen(item, session.workstream_id)
    item.permission = gating.Decided(verdict, decided_by=verdict.decided_by)
    if verdict.outcome == "deny":
        session.emit(ev.ToolCallUpdated(item.call.id, "denied", "refused"))
        session.emit(ev.PermissionNoted(item.call.id, f"refused: {verdict.why}"))
        await _audit(session, item, "refused")
        return None, True
    if verdict.outcome == "ask" and not await _user_approves(session, item):
        await _audit(session, item, "denied")
        return None, True
    ctx = dataclasses.replace(session.tool_context, workstream_id=session.workstream_id,
                              wrap_command=gating.wrapper(session, item),
                              on_output=lambda text: session.emit(ev.ToolOutput(item.call.id, text)))
    session.emit(ev.ToolCallUpdated(item.call.id, "running"))
    output, is_error = await gating.execute_guarded(session, item, ctx, execute)
    await gating.audit(session, item, is_error=is_error, cancelled=False, decision=None, decided_by=None)
    return output, is_error


async def _user_approves(session, item) -> bool:
    """Ask in the approval modal; "always" saves the rules offered, a critical call needs the override."""
    decisions = await gating.ask_user(session, [gating.approval_item(session, item)])
    decision, _ = gating.answer_for(item, decisions)
    if decision.decision == "deny":
        session.emit(ev.ToolCallUpdated(item.call.id, "denied", decision.feedback.strip()))
        return False
    await gating.approve(session, item, decision)
    return True


async def _audit(session, item, decision: str) -> None:
    decided_by = "user" if decision == "denied" else None
    await gating.audit(session, item, is_error=True, cancelled=False, decision=decision, decided_by=decided_by)
