"""The session's side of the policy gate: screen each call, ask about the rest, apply the answers,
run commands in the sandbox (and once outside, if the user says so), write the audit rows."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from app.engine import events as ev
from app.permissions.gate import Verdict
from app.vocabulary.messages import Message
from tools.pipeline import refusal_before_asking

if TYPE_CHECKING:
    from app.engine.session_view import SessionView as Session  # what a helper sees of the Session
    from tools.pipeline import PreparedCall

REFUSED = ("Whimbrel's permission policy refused this call: {why}. It did not run; do not retry it unchanged "
           "(ask the user, or take another way).")
OVERRIDE_NEEDED = ("The user did not override the critical-risk refusal ({why}), so the call did not run.")


@dataclass
class Decided:
    """A call's verdict and, once known, how it was finally decided and how long it ran."""

    verdict: Verdict
    decision: str = "allowed"  # allowed | approved | denied | refused
    decided_by: str = ""
    started: float = 0.0
    duration: float | None = None
    outside: bool = False  # the user let it run once outside the sandbox


async def screen_calls(session: Session, prepared: list[PreparedCall]) -> tuple[list[PreparedCall], list[PreparedCall]]:
    """(calls that may run now, calls to ask about); refused and broken ones are finished here."""
    runnable: list[PreparedCall] = []
    asking: list[PreparedCall] = []
    guard = session.guard
    for item in prepared:
        if item.error:
            await session._finish_call(item, item.error, is_error=True, decision="refused",
                                       decided_by="not run: the call was invalid")
            continue
        refused = await refusal_before_asking(item, session.tool_context)
        if refused:  # it could never run: the model hears why at once, nobody is asked to approve it
            session.emit(ev.PermissionNoted(item.call.id, f"refused: {refused}"))
            await session._finish_call(item, refused, is_error=True, decision="refused",
                                       decided_by=f"{item.call.name.strip()} refused it before asking")
            continue
        late = await read_off_loop(item)
        verdict = late_verdict(late, guard.unattended, item) if late else await guard.screen(item, session.workstream_id)
        _tell_notices(session)
        item.permission = Decided(verdict, decided_by=verdict.decided_by)
        if verdict.outcome == "deny":
            item.permission.decision = "refused"
            session.emit(ev.ToolCallUpdated(item.call.id, "denied", "refused"))
            session.emit(ev.PermissionNoted(item.call.id, f"refused: {verdict.why}"))
            await session._finish_call(item, REFUSED.format(why=verdict.why.rstrip(".")), is_error=True,
                                       status=None)
        elif verdict.outcome == "allow":
            if verdict.source != "tool":  # a harmless read needs no explanation
                session.emit(ev.PermissionNoted(item.call.id, f"ran unasked: {verdict.why}"))
            runnable.append(item)
        else:
            asking.append(item)
    return runnable, asking


READ_DEADLINE = 3.0  # seconds; the reader stops itself after 1 s (shell.DEADLINE), this covers a starved thread


async def read_off_loop(item: PreparedCall) -> str | None:
    """Read a bash call's command on a thread, so the gate finds it read (cached) and the event loop never
    waits on the reader; a reason to ask when the reading did not finish by the deadline, else None."""
    from app.permissions.wrappers import read_line
    from app.permissions.shell import Unparseable

    command = (item.args or {}).get("command") if item.call.name.strip() == "bash" else None
    if not isinstance(command, str):
        return None

    def read() -> None:
        try:
            read_line(command)
        except Unparseable:
            pass  # remembered by read_line; the gate asks about it

    try:
        await asyncio.wait_for(asyncio.to_thread(read), READ_DEADLINE)
    except asyncio.TimeoutError:
        return f"reading the command took longer than {READ_DEADLINE:g} s, so it is asked about"
    return None


def late_verdict(why: str, unattended: str | None, item: PreparedCall) -> Verdict:
    """Ask (unattended: refuse, as the guard does) about a call whose command could not be read in time."""
    from app.permissions.risk import Risk

    if unattended:
        from tools.guard import nobody_text

        nobody = nobody_text(unattended, item.call.name.strip())
        return Verdict("deny", "rule", f"{why}; {nobody}", Risk("medium", "the command could not be read in time"))
    return Verdict("ask", "rule", why, Risk("medium", "the command could not be read in time"))


def approval_item(session: Session, item: PreparedCall) -> ev.ApprovalItem:
    """What the modal shows of a call: why it asks, the risk, the rules "Always" would save."""
    verdict: Verdict = item.permission.verdict
    return ev.ApprovalItem(item.call.id, item.call.name.strip(), item.preview, item.diff, verdict.why,
                           risk_level=verdict.risk.level, risk_reason=verdict.risk.reason,
                           suggestions=list(verdict.suggestions), needs_override=verdict.needs_override,
                           mode=session.guard.mode)


async def ask_user(session: Session, items: list[ev.ApprovalItem], *, notify: bool = False,
                   on_cancel: Callable[[], Awaitable[None]] | None = None) -> dict[str, ev.ApprovalDecision]:
    """Show `items` in the frontend's approval modal and wait for the answers ({call_id: decision}).

    The workstream shows "attention" meanwhile (`notify`: Notification hooks hear of it too). Cancelled
    (Esc, a closed tab), the modal is closed, `on_cancel` records what did not run, and the cancel goes on."""
    future: asyncio.Future = asyncio.get_running_loop().create_future()
    session.emit(ev.StateChanged("attention"))
    if notify:
        notify_attention(session, items)
    session.emit(ev.ApprovalRequested(items, future))
    try:
        decisions: dict[str, ev.ApprovalDecision] = await future
    except asyncio.CancelledError:
        if not future.done():
            future.cancel()  # tells the frontend to close its approval dialog
        if on_cancel is not None:
            await asyncio.shield(on_cancel())
        raise
    session.emit(ev.StateChanged("running"))
    return decisions


def answer_for(item: PreparedCall, decisions: dict[str, ev.ApprovalDecision]) -> tuple[ev.ApprovalDecision, str]:
    """The user's answer for one call, and what the model is told when it is a no. A yes to a
    critical call that needs the override counts as a no."""
    decision = decisions.get(item.call.id) or ev.ApprovalDecision("deny")
    verdict: Verdict = item.permission.verdict
    if decision.decision != "deny" and verdict.needs_override and decision.decision != "override":
        return ev.ApprovalDecision("deny", feedback=decision.feedback), OVERRIDE_NEEDED.format(why=verdict.risk.reason)
    return decision, "The user denied this tool call."


async def apply_decision(session: Session, item: PreparedCall, decisions: dict[str, ev.ApprovalDecision]) -> bool:
    """Carry out the user's answer for one call; True when it may run."""
    decision, text = answer_for(item, decisions)
    if decision.decision == "deny":
        if decision.feedback.strip():
            text += f" Their feedback: {decision.feedback.strip()}"
        item.permission.decision, item.permission.decided_by = "denied", "user"
        session.emit(ev.ToolCallUpdated(item.call.id, "denied", decision.feedback.strip()))
        await session._finish_call(item, text, is_error=True, status=None)
        return False
    await approve(session, item, decision)
    return True


async def approve(session: Session, item: PreparedCall, decision: ev.ApprovalDecision) -> None:
    """The user said yes: mark the call approved, and for "always" save the rules and say where."""
    decided: Decided = item.permission
    decided.decision = "approved"
    decided.decided_by = "user: override of a critical risk" if decision.decision == "override" else "user"
    if decision.decision == "always":
        rules = [r for r in (decision.rules or decided.verdict.suggestions) if r.strip()]
        where = await session.guard.remember(rules, decision.scope)
        decided.decided_by = f"user: always ({', '.join(rules)} saved to {where})"
        session.emit(ev.Notice(f"Saved {', '.join(rules) or 'no rule'} → {where}.", level="info"))
    session.emit(ev.ToolCallUpdated(item.call.id, "approved"))
    if decision.decision != "approve":
        session.emit(ev.PermissionNoted(item.call.id, decided.decided_by))


def wrapper(session: Session, item: PreparedCall) -> Callable[[list[str]], list[str]] | None:
    decided: Decided | None = item.permission
    network = decided.verdict.network if decided else False
    return session.guard.wrapper(item.call.name.strip(), network, outside=bool(decided and decided.outside))


async def execute_guarded(session: Session, item: PreparedCall, ctx: Any,
                          execute: Callable[[PreparedCall, Any], Awaitable[tuple[str, bool]]]) -> tuple[str, bool]:
    """Run the call; when the sandbox stopped a command, say so and offer to run it once outside."""
    decided: Decided | None = item.permission
    started = time.monotonic()
    output, is_error = await execute(item, ctx)
    if decided is not None and is_error and item.call.name.strip() == "bash" and not decided.outside:
        blocked = session.guard.blocked(output, decided.verdict.network)
        if blocked:
            output, is_error = await _offer_outside(session, item, ctx, execute, output, blocked)
    if decided is not None:
        decided.duration = time.monotonic() - started
    output = await session.guard.after(item, output, is_error, session.workstream_id)
    _tell_notices(session)
    return output, is_error


def _tell_notices(session: Session) -> None:
    """Hook failures and the like, as warnings in the transcript."""
    for notice in session.guard.notices:
        session.emit(ev.Notice(notice, level="warning"))
    session.guard.notices.clear()


async def screen_prompt(session: Session, text: str) -> str | None:
    """SessionStart hooks (before the session's first prompt), then UserPromptSubmit hooks. None when a
    hook stopped the prompt (the user is told); else the context the hooks give the model ("" for none)."""
    guard = session.guard
    if not guard.hooks:
        return ""
    if not guard.session_started:
        guard.session_started = True
        if guard.has_hooks("SessionStart"):
            source = "resume" if session.messages else "startup"
            await guard.event("SessionStart", {"source": source}, session.workstream_id, matcher_on=source)
    blocked = await guard.event("UserPromptSubmit", {"prompt": text}, session.workstream_id)
    _tell_notices(session)
    context, guard.context[:] = "\n\n".join(guard.context), []
    if blocked:
        session.emit(ev.Notice(f"A hook stopped this prompt: {blocked}", level="warning"))
        return None
    return context


def with_hook_context(text: str, context: str) -> str:
    """The prompt as the model gets it: the hooks' context after the user's words."""
    return f"{text}\n\n<hook-context>\n{context}\n</hook-context>" if context else text


def user_raw(images: list[dict] | None, hook_context: str) -> dict | None:
    """What a user message keeps beside its text: its images, and the hooks' context for the model
    (kept apart, so the transcript, history, export and search show only what the user wrote)."""
    raw: dict = {}
    if images:
        raw["images"] = images
    if hook_context:
        raw["hook_context"] = hook_context
    return raw or None


def as_model_sees(message: Message) -> Message:
    """A stored message as it is sent: a user message with its hooks' context after the user's words."""
    context = (message.raw or {}).get("hook_context") if message.role == "user" else None
    if not isinstance(context, str) or not context:
        return message
    return dataclasses.replace(message, content=with_hook_context(message.content, context))


def notify_attention(session: Session, items: list[ev.ApprovalItem]) -> None:
    """Notification hooks, as Claude Code fires them when a permission prompt opens (in a background tab
    too: the workstream's own session fires them)."""
    if not items:
        return
    from app.permissions.claude_names import claude_name

    names = ", ".join(dict.fromkeys(claude_name(item.name) for item in items))
    notification_hooks(session, f"Whimbrel needs your permission to use {names}", "permission_prompt")


def user_notified(session: Session, message: str) -> None:
    """The `notify` tool told the user something: the app shows it, Notification hooks hear it."""
    session.emit(ev.UserNotified(message))
    notification_hooks(session, message, "notify")


def notification_hooks(session: Session, message: str, kind: str) -> None:
    """Notification hooks with Claude Code's payload (`message`, `title`, `notification_type`; the
    session id, cwd and mode come with every event), run in the background, so a slow hook never holds
    the modal or the tool back (its failures reach the transcript with the next notices)."""
    guard = session.guard
    if not guard.has_hooks("Notification"):
        return
    payload = {"message": message, "notification_type": kind, "title": "Whimbrel"}
    task = asyncio.get_running_loop().create_task(
        guard.event("Notification", payload, session.workstream_id, matcher_on=kind))
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


_BACKGROUND: set[asyncio.Task] = set()  # Notification hooks under way (kept from the garbage collector)


async def turn_stopped(session: Session, outcome: str) -> None:
    """Stop hooks, once a turn has ended (their answer is advisory here)."""
    if session.guard.hooks:
        await session.guard.event("Stop", {"stop_hook_active": False, "outcome": outcome}, session.workstream_id)
        _tell_notices(session)


async def _offer_outside(session: Session, item: PreparedCall, ctx: Any, execute, output: str,
                         blocked: str) -> tuple[str, bool]:
    session.emit(ev.PermissionNoted(item.call.id, f"sandbox: {blocked}"))
    ask = ev.ApprovalItem(item.call.id, item.call.name.strip(), item.preview, "",
                          f"{blocked}. Run it once outside the sandbox?", risk_level="high",
                          risk_reason="runs without the OS sandbox")
    answer = (await ask_user(session, [ask], notify=True)).get(item.call.id)
    if answer is None or answer.decision == "deny":
        item.permission.decided_by += "; sandbox blocked it, and the user did not let it run outside"
        return (f"{output}\n[{blocked}. The command ran in Whimbrel's sandbox (the workspace and a private /tmp "
                "are writable; the network is off unless allowed), and the user did not let it run outside.]"), True
    item.permission.outside = True
    item.permission.decided_by += "; user: ran once outside the sandbox"
    session.emit(ev.PermissionNoted(item.call.id, "ran once outside the sandbox, approved by you"))
    return await execute(item, dataclasses.replace(ctx, wrap_command=None))


async def audit(session: Session, item: PreparedCall, *, is_error: bool, cancelled: bool,
                decision: str | None, decided_by: str | None) -> None:
    decided: Decided | None = item.permission
    final = decision or (decided.decision if decided else "refused")
    if cancelled:
        status = "cancelled"
    elif final in ("denied", "refused"):
        status = final
    else:
        status = "error" if is_error else "done"
    await session.guard.record(item, decided.verdict if decided else None, final, status,
                               decided.duration if decided else None, session.workstream_id,
                               decided_by=decided_by or (decided.decided_by if decided else None),
                               network=bool(decided and decided.verdict.network))
