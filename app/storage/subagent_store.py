"""Sub-agent runs and their messages (tables of migration 8). Plain functions over a `Store`, run
on the database thread with `AsyncStore.run(fn, async_store.store, ...)`."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from app.vocabulary.messages import Message


def start_run(store: Any, workstream_id: str, *, call_id: str, kind: str, name: str, prompt: str,
              model: str | None) -> str:
    run_id = uuid.uuid4().hex
    with store._engine.begin() as conn:
        conn.insert("subagent_runs", {
            "id": run_id, "workstream_id": workstream_id, "call_id": call_id, "kind": kind, "name": name,
            "prompt": prompt, "model": model, "status": "running", "created_at": time.time()})
    return run_id


def finish_run(store: Any, run_id: str, status: str, result: str) -> None:
    with store._engine.begin() as conn:
        conn.execute("UPDATE subagent_runs SET status = ?, result = ?, finished_at = ? WHERE id = ?",
                     (status, result, time.time(), run_id))


def add_message(store: Any, run_id: str, message: Message) -> None:
    data = {"tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls],
            "tool_call_id": message.tool_call_id, "name": message.name, "is_error": message.is_error}
    with store._engine.begin() as conn:
        conn.insert("subagent_messages", {"run_id": run_id, "role": message.role, "content": message.content or "",
                                          "data": json.dumps(data), "created_at": time.time()})


def list_runs(store: Any, workstream_id: str) -> list[dict[str, Any]]:
    with store._reads.connect() as conn:
        rows = conn.execute("SELECT * FROM subagent_runs WHERE workstream_id = ? ORDER BY created_at",
                            (workstream_id,))
        return [r._mapping for r in rows]


def run_messages(store: Any, run_id: str) -> list[dict[str, Any]]:
    with store._reads.connect() as conn:
        rows = [r._mapping for r in conn.execute("SELECT * FROM subagent_messages WHERE run_id = ? ORDER BY id",
                                                 (run_id,))]
    return [{**r, "data": json.loads(r["data"] or "{}")} for r in rows]
