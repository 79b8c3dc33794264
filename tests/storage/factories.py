"""Fast bulk data for tests and benchmarks: a workstream with N messages in one transaction.

`make_workstream(store, 5000)` writes a realistic mix — user prompts, assistant replies
(some with reasoning and tool calls), tool results (some long, some errors) — through the
same codec `Store.add_message` uses, so the rows (and the FTS index, via its triggers) are
exactly what the app would have written.
"""

from __future__ import annotations

import json
import random
import uuid

from app.vocabulary.messages import Message, ToolCall
from app.storage.codec import message_rows
from app.storage.store import Store

WORDS = ("parser migration index cache schema widget pane tab latency stream token "
         "approval sandbox retry backoff snapshot layout history search prompt").split()


def conversation(n: int, seed: int = 0) -> list[Message]:
    """`n` messages in turn order: user, assistant (+ tool calls), tool results, ..."""
    rng = random.Random(seed)
    out: list[Message] = []
    turn = 0
    while len(out) < n:
        turn += 1
        out.append(Message(role="user", content=f"turn {turn}: please look at the "
                           f"{rng.choice(WORDS)} and the {rng.choice(WORDS)}"))
        calls = [ToolCall(id=f"call_{turn}_{k}", name=rng.choice(["bash", "read_file"]),
                         arguments=json.dumps({"path": f"src/{rng.choice(WORDS)}.py"}))
                 for k in range(rng.choice([0, 1, 2]))]
        out.append(Message(role="assistant", content=f"Checking the {rng.choice(WORDS)}.",
                           reasoning="thinking about it" if turn % 3 == 0 else "",
                           tool_calls=calls))
        for k, call in enumerate(calls):
            lines = 200 if (turn + k) % 7 == 0 else 3
            body = "\n".join(f"{i}: {rng.choice(WORDS)} {rng.choice(WORDS)}" for i in range(lines))
            out.append(Message(role="tool", content=body, tool_call_id=call.id, name=call.name,
                               is_error=(turn + k) % 11 == 0))
        if calls:
            out.append(Message(role="assistant", content=f"Done with turn {turn}."))
    return out[:n]


def make_workstream(store: Store, n: int, *, title: str | None = "bulk",
                    alias: str | None = None, seed: int = 0, start: float = 1_000.0) -> str:
    """Create a workstream holding `n` messages (one transaction); return its id.

    Message i gets `created_at = start + i`; the workstream's last activity is the last one.
    """
    msgs = conversation(n, seed)
    ws_id = uuid.uuid4().hex
    rows = []
    seq = 0
    for i, msg in enumerate(msgs):
        for row in message_rows(msg):
            seq += 1
            rows.append({"workstream_id": ws_id, "seq": seq, "created_at": start + i,
                         "content": "", "reasoning": "", "tool_call_id": None,
                         "tool_name": None, "tool_args": None, "is_error": False,
                         "interrupted": False, "raw": None, **row})
    with store.engine.begin() as conn:
        conn.insert("workstreams", {
            "id": ws_id, "title": title, "alias": alias, "model": "fake", "workdir": "", "created_at": start,
            "updated_at": start + max(len(msgs) - 1, 0), "state": "idle"})
        if rows:
            columns = list(rows[0])  # every row has the same keys
            conn.executemany(f"INSERT INTO messages ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                             [tuple(row[c] for c in columns) for row in rows])
    return ws_id
