"""The one internal message format every room shares; providers translate it at their boundary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass
class ToolCall:
    """One function call requested by the model. `arguments` is the raw JSON text as streamed."""

    id: str
    name: str
    arguments: str


@dataclass
class Message:
    """A conversation message.

    - user / system: `content`.
    - assistant: `content`, optional `reasoning`, optional `tool_calls`.
    - tool: `content` is the result text, `tool_call_id` and `name` link it to its call.
    `raw` keeps provider-specific data (stored, never required). `db_id` is the storage row id.
    """

    role: Role
    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    interrupted: bool = False
    raw: dict[str, Any] | None = None
    db_id: int | None = None


def repair_interrupted(messages: list[Message]) -> list[Message]:
    """Return a copy of `messages` fit to send to a model.

    An assistant turn whose tool calls did not all get results (the app was killed or
    cancelled mid-turn) loses those calls; tool results without a call are dropped. An
    assistant message left with neither text nor calls is dropped entirely.
    """
    results = {m.tool_call_id for m in messages if m.role == "tool"}
    kept_calls: set[str] = set()
    repaired: list[Message] = []
    for msg in messages:
        if msg.role == "assistant" and msg.tool_calls:
            complete = all(tc.id in results for tc in msg.tool_calls)
            if complete:
                kept_calls.update(tc.id for tc in msg.tool_calls)
                repaired.append(msg)
            elif msg.content.strip():
                repaired.append(
                    Message(role="assistant", content=msg.content, reasoning=msg.reasoning,
                            raw=msg.raw, db_id=msg.db_id, interrupted=True)
                )
        elif msg.role == "tool":
            if msg.tool_call_id in kept_calls:
                repaired.append(msg)
        elif msg.role == "assistant" and not msg.content.strip() and not msg.reasoning.strip():
            continue
        else:
            repaired.append(msg)
    return _in_call_order(repaired)


def _in_call_order(messages: list[Message]) -> list[Message]:
    """The results right after an assistant message in the order of its calls: parallel calls are
    stored as they finish, but the model reads result N as the answer to call N."""
    ordered = list(messages)
    for start, msg in enumerate(ordered):
        if msg.role != "assistant" or not msg.tool_calls:
            continue
        end = start + 1
        while end < len(ordered) and ordered[end].role == "tool":
            end += 1
        place = {tc.id: i for i, tc in enumerate(msg.tool_calls)}
        ordered[start + 1:end] = sorted(ordered[start + 1:end], key=lambda m: place.get(m.tool_call_id or "", len(place)))
    return ordered


def messages_for_model(messages: list[Message], context_start: int = 0) -> list[Message]:
    """What the model sees of a conversation: the messages after the latest /clear, repaired.

    `context_start` is `Conversation.context_start` from the store (0 = never cleared); the
    full list stays the display history.
    """
    return repair_interrupted(messages[max(context_start, 0):])
