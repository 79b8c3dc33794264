"""Translate between engine `Message`s and `messages` table rows.

One Message can span several rows: an assistant turn is an 'assistant' row followed by
one 'tool_call' row per call, so tool calls are searchable and linkable by id.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from app.vocabulary.messages import Message, ToolCall

Row = dict[str, Any]


def message_rows(msg: Message) -> list[Row]:
    """The rows (without ids, seq or timestamps) that store `msg`; the first is its main row."""
    if msg.role in ("user", "system"):
        row: Row = {"role": msg.role, "content": msg.content}
        if msg.raw is not None:  # a user message's images (app/mentions/images.py)
            row["raw"] = json.dumps(msg.raw)
        return [row]
    if msg.role == "tool":
        return [{
            "role": "tool_result",
            "content": msg.content,
            "tool_call_id": msg.tool_call_id,
            "tool_name": msg.name,
            "is_error": msg.is_error,
        }]
    if msg.role == "assistant":
        head: Row = {
            "role": "assistant",
            "content": msg.content,
            "reasoning": msg.reasoning,
            "interrupted": msg.interrupted,
            "raw": json.dumps(msg.raw) if msg.raw is not None else None,
        }
        calls = [
            {"role": "tool_call", "tool_call_id": tc.id, "tool_name": tc.name,
             "tool_args": tc.arguments}
            for tc in msg.tool_calls
        ]
        return [head, *calls]
    raise ValueError(f"cannot store a message with role {msg.role!r}")


def rows_to_messages(rows: Iterable[Mapping[str, Any]]) -> list[Message]:
    """Rebuild Messages from rows in `seq` order, folding tool_call rows into their turn."""
    out: list[Message] = []
    for row in rows:
        role = row["role"]
        if role == "tool_call":
            call = ToolCall(id=row["tool_call_id"] or "", name=row["tool_name"] or "",
                            arguments=row["tool_args"] or "")
            if not out or out[-1].role != "assistant":
                out.append(Message(role="assistant"))  # orphan call: keep it visible
            out[-1].tool_calls.append(call)
        elif role == "tool_result":
            out.append(Message(role="tool", content=row["content"] or "",
                               tool_call_id=row["tool_call_id"], name=row["tool_name"],
                               is_error=bool(row["is_error"]), db_id=row["id"]))
        elif role == "assistant":
            out.append(Message(role="assistant", content=row["content"] or "",
                               reasoning=row["reasoning"] or "",
                               interrupted=bool(row["interrupted"]),
                               raw=json.loads(row["raw"]) if row["raw"] else None,
                               db_id=row["id"]))
        else:
            out.append(Message(role=role, content=row["content"] or "", db_id=row["id"],
                               raw=json.loads(row["raw"]) if row.get("raw") else None))
    return out
