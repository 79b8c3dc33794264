"""Engine events as ACP session updates (message, thought, tool-call chunks, usage) and stored history replayed.

Pure translations: the agent sends what these return, in order, through the client connection.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.acp.tool_calls import diff_content, locations, tool_kind
from app.engine import events as ev
from app.vocabulary.messages import Message

STATUS = {"pending": "pending", "approved": "pending", "running": "in_progress", "done": "completed",
          "error": "failed", "denied": "failed"}


def _raw_input(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except (ValueError, TypeError):
        return {"arguments": arguments}


def tool_title(name: str, preview: str) -> str:
    return f"{name} {preview}".strip()[:200]


def update_for(event: ev.EngineEvent, workdir: Path, diffs: dict[str, Any]) -> Any | None:
    """The session update for one engine event, or None for events ACP does not carry.

    Called as the engine emits the event, so a write's or an edit's `diff` is taken from the file before the call
    runs; `diffs` keeps it by call id, for the permission request and the call's final update. Notices (retries,
    "Turn cancelled", a failed request) are not the agent's words: the prompt's answer carries the outcome (stop
    reason `cancelled`, or a JSON-RPC error), and the agent's log (stderr) the rest."""
    import acp

    if isinstance(event, ev.CodeCallEvent):  # a run_code program's call: a tool call of its own
        return update_for(event.event, workdir, diffs)
    if isinstance(event, ev.ContentDelta) and event.text:
        return acp.update_agent_message_text(event.text)
    if isinstance(event, ev.ReasoningDelta) and event.text:
        return acp.update_agent_thought_text(event.text)
    if isinstance(event, ev.ToolCallAdded):
        diff = diff_content(event.name, event.arguments, workdir)
        if diff is not None:
            diffs[event.call_id] = diff
        return acp.start_tool_call(event.call_id, tool_title(event.name, event.preview), kind=tool_kind(event.name),
                                   status="pending", content=[diff] if diff is not None else None,
                                   locations=locations(event.name, event.arguments, workdir),
                                   raw_input=_raw_input(event.arguments))
    if isinstance(event, ev.ToolCallUpdated) and event.status == "running":
        return acp.update_tool_call(event.call_id, status=STATUS[event.status])
    # a refused call ("denied") is told once, by its result's `failed` update
    if isinstance(event, ev.ToolResultReady):
        diff = diffs.pop(event.call_id, None)
        shown = [diff] if diff is not None and not event.is_error else []  # an edit that failed changed nothing
        return acp.update_tool_call(event.call_id, status="failed" if event.is_error else "completed",
                                    content=shown + [acp.tool_content(acp.text_block(event.output))],
                                    raw_output=event.output)
    return None


def history_updates(messages: list[Message], workdir: Path) -> list[Any]:
    """A loaded session's conversation, replayed as the updates that first told it (session/load)."""
    import acp

    updates: list[Any] = []
    for message in messages:
        if message.role == "user" and message.content:
            updates.append(acp.update_user_message_text(message.content))
        elif message.role == "assistant":
            if message.reasoning:
                updates.append(acp.update_agent_thought_text(message.reasoning))
            if message.content:
                updates.append(acp.update_agent_message_text(message.content))
            for call in message.tool_calls:
                updates.append(acp.start_tool_call(call.id, tool_title(call.name, ""), kind=tool_kind(call.name),
                                                   status="pending", locations=locations(call.name, call.arguments,
                                                                                         workdir),
                                                   raw_input=_raw_input(call.arguments)))
        elif message.role == "tool" and message.tool_call_id:
            updates.append(acp.update_tool_call(message.tool_call_id,
                                                status="failed" if message.is_error else "completed",
                                                content=[acp.tool_content(acp.text_block(message.content))],
                                                raw_output=message.content))
    return updates


def usage_update(recorded: ev.UsageRecorded, used: int, size: int | None, cost_before: float = 0.0) -> Any:
    """A request's usage as ACP's `usage_update`: tokens in context, the window (0: unknown), and the session's
    cost so far (`cost_before`: what its turns cost before it was loaded into this process)."""
    from acp.schema import Cost, UsageUpdate

    cost = None if recorded.session_cost is None else Cost(amount=cost_before + recorded.session_cost, currency="USD")
    return UsageUpdate(session_update="usage_update", used=used, size=size or 0, cost=cost)


def turn_usage(recorded: list[ev.UsageRecorded]) -> Any | None:
    """The prompt response's `usage`: the turn's requests summed (None when none reported any)."""
    from acp.schema import Usage

    if not recorded:
        return None
    prompt, completion = sum(r.prompt_tokens for r in recorded), sum(r.completion_tokens for r in recorded)
    cache_read, cache_write = sum(r.cache_read_tokens for r in recorded), sum(r.cache_write_tokens for r in recorded)
    return Usage(total_tokens=prompt + completion, input_tokens=prompt, output_tokens=completion,
                 cached_read_tokens=cache_read or None, cached_write_tokens=cache_write or None)
