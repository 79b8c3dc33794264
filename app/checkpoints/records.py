"""The store's side of checkpoints: turn rows, rewind journal rows, fork links (synchronous).

Every function takes the synchronous `Store` and is meant to run on its database thread
(`AsyncStore.run(fn, store.store, ...)`). Writes take the write lock up front (BEGIN IMMEDIATE
through the store's engine), so a rewind's history cut and its journal row land together.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from app.storage.pieces import insert_message, with_pieces
from app.storage.engine import Connection, Row, marks, reader


@dataclass(frozen=True)
class CheckpointRow:
    """One turn that changed the workspace."""

    id: int
    workstream_id: str
    user_seq: int
    workspace: str
    before_tree: str
    after_tree: str
    changes: list[list[Any]]  # [path, status, added, removed, binary]
    skipped: list[str]
    outside: list[str]
    created_at: float


@dataclass(frozen=True)
class UserTurn:
    """A user message of a workstream: where it sits and what it said."""

    seq: int
    message_id: int
    text: str


@dataclass(frozen=True)
class OpRow:
    """A rewind or an undo, as journalled."""

    id: int
    workstream_id: str
    kind: str
    mode: str
    workspace: str
    from_tree: str | None
    to_tree: str | None
    cut_seq: int | None
    removed: dict[str, list[dict[str, Any]]] | None  # {"messages": [...], "checkpoints": [...]}
    undoes: int | None
    state: str


def _checkpoint(m: Any) -> CheckpointRow:
    return CheckpointRow(m["id"], m["workstream_id"], m["user_seq"], m["workspace"], m["before_tree"],
                         m["after_tree"], json.loads(m["changes"]), json.loads(m["skipped"]),
                         json.loads(m["outside"]), m["created_at"])


def _op(m: Any) -> OpRow:
    return OpRow(m["id"], m["workstream_id"], m["kind"], m["mode"], m["workspace"], m["from_tree"], m["to_tree"],
                 m["cut_seq"], json.loads(m["removed"]) if m["removed"] else None, m["undoes"], m["state"])


# -- turns ---------------------------------------------------------------------------------
def add_checkpoint(store: Any, workstream_id: str, *, user_message_id: int | None, user_seq: int,
                   workspace: str, before_tree: str, after_tree: str, changes: list[list[Any]],
                   skipped: list[str], outside: list[str]) -> int:
    """Record one turn's checkpoint; returns its id."""
    with store.engine.begin() as conn:
        return conn.insert("checkpoints", {
            "workstream_id": workstream_id, "user_message_id": user_message_id, "user_seq": user_seq,
            "workspace": workspace, "before_tree": before_tree, "after_tree": after_tree,
            "changes": json.dumps(changes), "skipped": json.dumps(skipped), "outside": json.dumps(outside),
            "created_at": time.time(),
        })


# The workstream's (:ws) checkpoints whose user message is still there.
#
# A turn dropped by `/rewind N` (which cuts only the conversation) leaves its checkpoint behind;
# its message row is gone, or its id and seq were reused by a later message (newer than the
# checkpoint), so the checkpoint no longer counts.
_LISTED = """SELECT * FROM checkpoints WHERE workstream_id = :ws AND (user_message_id IS NULL OR EXISTS (
    SELECT * FROM messages WHERE messages.id = checkpoints.user_message_id AND messages.seq = checkpoints.user_seq
    AND messages.created_at <= checkpoints.created_at))"""


def list_checkpoints(store: Any, workstream_id: str) -> list[CheckpointRow]:
    """The workstream's checkpoints that still count (see `_LISTED`), oldest first."""
    with reader(store.engine).connect() as conn:
        rows = conn.execute(_LISTED + " ORDER BY user_seq, id", {"ws": workstream_id})
        return [_checkpoint(r._mapping) for r in rows]


def listed_checkpoint(store: Any, workstream_id: str, checkpoint_id: int) -> CheckpointRow | None:
    """One checkpoint of the workstream, if it still counts."""
    with reader(store.engine).connect() as conn:
        row = conn.execute(_LISTED + " AND id = :id", {"ws": workstream_id, "id": checkpoint_id}).first()
    return _checkpoint(row._mapping) if row else None


def user_turns(store: Any, workstream_id: str) -> list[UserTurn]:
    """The workstream's user messages, in order."""
    with reader(store.engine).connect() as conn:
        rows = conn.execute("SELECT seq, id, content FROM messages WHERE workstream_id = ? AND role = 'user'"
                            " ORDER BY seq", (workstream_id,))
        return [UserTurn(*r) for r in rows]


def message_time(store: Any, workstream_id: str, seq: int) -> float | None:
    """When the workstream's message at `seq` was stored (None when it is gone)."""
    with reader(store.engine).connect() as conn:
        return conn.execute("SELECT created_at FROM messages WHERE workstream_id = ? AND seq = ?",
                            (workstream_id, seq)).scalar()


def overlapping_checkpoints(store: Any, workspace: str, workstream_id: str, since: float) -> list[CheckpointRow]:
    """Other workstreams' checkpoints on `workspace` whose turns ended after `since`, oldest first."""
    with reader(store.engine).connect() as conn:
        rows = conn.execute("SELECT * FROM checkpoints WHERE workspace = ? AND workstream_id != ? AND created_at > ?"
                            " ORDER BY created_at", (workspace, workstream_id, since))
        return [_checkpoint(r._mapping) for r in rows]


def changed_by_others(store: Any, workspace: str, workstream_id: str, since: float) -> dict[str, str]:
    """path → the title of another workstream whose turn on `workspace` changed it and ended after `since`.

    Two workstreams (in one window or two) share a workspace and its checkpoint store; a rewind of one
    leaves these files as the other left them, so it never undoes the other's work.
    """
    with reader(store.engine).connect() as conn:
        rows = conn.execute("""SELECT c.changes, w.title, w.alias
            FROM checkpoints c LEFT OUTER JOIN workstreams w ON w.id = c.workstream_id
            WHERE c.workspace = ? AND c.workstream_id != ? AND c.created_at > ? ORDER BY c.created_at""",
                            (workspace, workstream_id, since)).all()
    found: dict[str, str] = {}
    for changes, title, alias in rows:
        for change in json.loads(changes):
            found[change[0]] = alias or title or "another workstream"
    return found


def rewinds_by_others(store: Any, workspace: str, workstream_id: str, since: float) -> list[tuple[str, str, str]]:
    """(from tree, to tree, workstream title) of other workstreams' file rewinds and undos on `workspace`
    finished after `since`: the files they restored are theirs too, as much as their turns' are."""
    with reader(store.engine).connect() as conn:
        rows = conn.execute("""SELECT o.from_tree, o.to_tree, w.title, w.alias
            FROM checkpoint_ops o LEFT OUTER JOIN workstreams w ON w.id = o.workstream_id
            WHERE o.workspace = ? AND o.workstream_id != ? AND o.to_tree IS NOT NULL AND o.from_tree IS NOT NULL
            AND o.finished_at > ? ORDER BY o.finished_at""", (workspace, workstream_id, since)).all()
    return [(r[0], r[1], r[3] or r[2] or "another workstream") for r in rows]


def last_seq(store: Any, workstream_id: str) -> int:
    """The highest message seq of the workstream (0 when it has none)."""
    with reader(store.engine).connect() as conn:
        return _last_seq(conn, workstream_id)


def _last_seq(conn: Connection, workstream_id: str) -> int:
    return conn.execute("SELECT coalesce(max(seq), 0) FROM messages WHERE workstream_id = ?",
                        (workstream_id,)).scalar()


def last_known_tree(store: Any, workspace: str) -> str | None:
    """The tree Whimbrel last left `workspace` in (a turn's end or a rewind), by any workstream."""
    with reader(store.engine).connect() as conn:
        turn = conn.execute("SELECT after_tree, created_at FROM checkpoints WHERE workspace = ?"
                            " ORDER BY created_at DESC, id DESC LIMIT 1", (workspace,)).first()
        op = conn.execute("SELECT to_tree, finished_at FROM checkpoint_ops WHERE workspace = ? AND to_tree IS NOT NULL"
                          " AND state != 'pending' ORDER BY finished_at DESC LIMIT 1", (workspace,)).first()
    candidates = [c for c in (turn, op) if c is not None]
    return max(candidates, key=lambda c: c[1])[0] if candidates else None


# -- the rewind journal --------------------------------------------------------------------
def begin_op(store: Any, workstream_id: str, *, kind: str, mode: str, workspace: str, from_tree: str | None,
             to_tree: str | None, cut_seq: int | None, undoes: int | None = None) -> int:
    """Journal a rewind (or undo) as pending, before anything changes; returns its id."""
    with store.engine.begin() as conn:
        return conn.insert("checkpoint_ops", {
            "workstream_id": workstream_id, "kind": kind, "mode": mode, "workspace": workspace,
            "from_tree": from_tree, "to_tree": to_tree, "cut_seq": cut_seq, "undoes": undoes, "state": "pending",
            "created_at": time.time(),
        })


def _op_row(conn: Connection, op_id: int) -> Row | None:
    return conn.execute("SELECT * FROM checkpoint_ops WHERE id = ?", (op_id,)).first()


def get_op(store: Any, op_id: int) -> OpRow | None:
    with reader(store.engine).connect() as conn:
        row = _op_row(conn, op_id)
    return _op(row._mapping) if row else None


def finish_op(store: Any, op_id: int) -> int:
    """In one transaction: cut (or put back) the conversation as the op says, and mark it done.

    Idempotent: an op already done is left as it is. Returns the number of messages removed or
    put back.
    """
    with store.engine.begin() as conn:
        row = _op_row(conn, op_id)
        if row is None or row._mapping["state"] != "pending":
            return 0
        op = _op(row._mapping)
        count = 0
        values: dict[str, Any] = {"state": "done", "finished_at": time.time()}
        if op.kind == "rewind" and op.cut_seq is not None:
            values["removed"], count = _cut(conn, op.workstream_id, op.cut_seq)
        elif op.kind == "undo" and op.undoes is not None:
            undone = _op_row(conn, op.undoes)
            if undone is not None and undone.removed and op.mode != "files":
                count = _put_back(conn, op.workstream_id, json.loads(undone.removed))
            conn.execute("UPDATE checkpoint_ops SET state = 'undone' WHERE id = ?", (op.undoes,))
        assignments = ", ".join(f"{column} = :{column}" for column in values)
        conn.execute(f"UPDATE checkpoint_ops SET {assignments} WHERE id = :id", {**values, "id": op_id})
        conn.execute("UPDATE workstreams SET updated_at = ? WHERE id = ?", (time.time(), op.workstream_id))
        return count


def _count(rows: list[dict[str, Any]]) -> int:
    """Messages as people count them: an assistant reply's tool-call rows are part of it."""
    return sum(1 for row in rows if row["role"] != "tool_call")


def messages_from(store: Any, workstream_id: str, seq: int) -> int:
    """How many messages (as people count them) the workstream has from `seq` on."""
    with reader(store.engine).connect() as conn:
        return conn.execute("SELECT count(*) FROM messages WHERE workstream_id = ? AND seq >= ?"
                            " AND role != 'tool_call'", (workstream_id, seq)).scalar()


def _take(conn: Connection, table: str, seq_column: str, workstream_id: str, cut_seq: int, *, order: str,
          whole: Callable = lambda conn, rows: rows) -> list[dict[str, Any]]:
    """Delete the workstream's rows of `table` whose `seq_column` is `cut_seq` or more; return them (made
    `whole`: messages with their pieces' text) without their workstream, their id kept as `old_id` (an
    undo links checkpoints to their messages' new ids)."""
    where = f" FROM {table} WHERE workstream_id = ? AND {seq_column} >= ?"
    found = [r._mapping for r in conn.execute(f"SELECT *{where} ORDER BY {order}", (workstream_id, cut_seq))]
    rows = [dict(r) for r in whole(conn, found)]
    for row in rows:
        row["old_id"] = row.pop("id")
        row.pop("workstream_id")
    conn.execute(f"DELETE{where}", (workstream_id, cut_seq))
    return rows


def _cut(conn: Connection, workstream_id: str, cut_seq: int) -> tuple[str, int]:
    """Delete the messages (and their turns' checkpoints) from `cut_seq` on; returns them as JSON
    (for an undo) and the number of messages."""
    removed = {
        "messages": _take(conn, "messages", "seq", workstream_id, cut_seq, order="seq", whole=with_pieces),
        "checkpoints": _take(conn, "checkpoints", "user_seq", workstream_id, cut_seq, order="id"),
    }
    conn.execute("DELETE FROM context_resets WHERE workstream_id = ? AND seq >= ?", (workstream_id, cut_seq))
    return json.dumps(removed), _count(removed["messages"])


def _put_back(conn: Connection, workstream_id: str, removed: dict[str, list[dict[str, Any]]]) -> int:
    """Re-insert removed message rows (and their checkpoints) after the current last message."""
    top = _last_seq(conn, workstream_id)
    rows = removed.get("messages", [])
    first = min((r["seq"] for r in rows), default=top + 1)
    shift = max(0, top + 1 - first)
    new_ids: dict[int, int] = {}
    for row in rows:
        old_id = row.pop("old_id", None)
        new_id = insert_message(conn, {**row, "workstream_id": workstream_id, "seq": row["seq"] + shift})
        if old_id is not None:
            new_ids[old_id] = new_id
    count = _count(rows)
    for row in removed.get("checkpoints", []):
        row.pop("old_id", None)
        conn.insert("checkpoints", {
            "workstream_id": workstream_id, **row, "user_seq": row["user_seq"] + shift,
            "user_message_id": new_ids.get(row["user_message_id"], row["user_message_id"])})
    return count


def pending_ops(store: Any) -> list[OpRow]:
    """Rewinds a killed process left half done, oldest first."""
    with reader(store.engine).connect() as conn:
        rows = conn.execute("SELECT * FROM checkpoint_ops WHERE state = 'pending' ORDER BY id")
        return [_op(r._mapping) for r in rows]


def op_finished_at(store: Any, op_id: int) -> float | None:
    """When a rewind (or undo) was finished (None while pending)."""
    with reader(store.engine).connect() as conn:
        return conn.execute("SELECT finished_at FROM checkpoint_ops WHERE id = ?", (op_id,)).scalar()


def last_undoable(store: Any, workstream_id: str) -> OpRow | None:
    """The workstream's latest rewind that is done and not undone yet."""
    with reader(store.engine).connect() as conn:
        row = conn.execute("SELECT * FROM checkpoint_ops WHERE workstream_id = ? AND kind = 'rewind' AND state = 'done'"
                           " ORDER BY id DESC LIMIT 1", (workstream_id,)).first()
    return _op(row._mapping) if row else None


# -- forks ---------------------------------------------------------------------------------
def fork_workstream(store: Any, parent_id: str, upto_seq: int, *, title: str, workdir: str,
                    model: str | None) -> str:
    """A new workstream holding the parent's messages up to seq `upto_seq` (inclusive); its id.

    A reply the parent is still streaming (in another window) or that a crash cut is stored as a row
    plus appended pieces (app/storage/drafts.py): the fork gets its text so far as a finished row
    (a long text as head and pieces, app/storage/pieces.py), still marked interrupted, since the
    fork will never finish it."""
    child = uuid.uuid4().hex
    now = time.time()
    with store.engine.begin() as conn:
        conn.insert("workstreams", {"id": child, "title": title, "alias": None, "model": model, "workdir": workdir,
                                    "created_at": now, "updated_at": now, "state": "idle"})
        rows = conn.execute("SELECT * FROM messages WHERE workstream_id = ? AND seq <= ? ORDER BY seq",
                            (parent_id, upto_seq))
        for row in with_pieces(conn, [r._mapping for r in rows]):
            row = dict(row)
            row.pop("id")
            insert_message(conn, {**row, "workstream_id": child})
        conn.execute("INSERT INTO workstream_forks (child_id, parent_id, upto_seq, created_at) VALUES (?, ?, ?, ?)",
                     (child, parent_id, upto_seq, now))
    return child


def fork_parents(store: Any) -> dict[str, str]:
    """child id → parent id for every fork."""
    with reader(store.engine).connect() as conn:
        return dict(conn.execute("SELECT child_id, parent_id FROM workstream_forks").all())


# -- retention -----------------------------------------------------------------------------
def expired_checkpoints(store: Any, retention_days: float, now: float | None = None) -> list[tuple[int, str]]:
    """(id, workspace) of checkpoints older than `retention_days` or whose workstream is gone."""
    now = time.time() if now is None else now
    with reader(store.engine).connect() as conn:
        rows = conn.execute("SELECT id, workspace FROM checkpoints"
                            " WHERE workstream_id NOT IN (SELECT id FROM workstreams)").all()
        if retention_days > 0:
            rows += conn.execute("SELECT id, workspace FROM checkpoints WHERE created_at < ?",
                                 (now - retention_days * 86400,)).all()
    return sorted(set((r[0], r[1]) for r in rows))


def delete_checkpoints(store: Any, ids: list[int]) -> None:
    with store.engine.begin() as conn:  # no ids: `IN (NULL)` matches nothing
        conn.execute(f"DELETE FROM checkpoints WHERE id IN ({marks(ids)})", list(ids))


# -- worktrees -----------------------------------------------------------------------------
WORKTREE_KEY = "worktree"  # workstream_config: the workstream's worktree, as Worktree.as_dict()


def worktrees(store: Any) -> dict[str, dict[str, str]]:
    """workstream id → its worktree, for every workstream that has one."""
    with reader(store.engine).connect() as conn:
        rows = conn.execute('SELECT workstream_id, value FROM workstream_config WHERE "key" = ?',
                            (WORKTREE_KEY,)).all()
    return {ws: value for ws, value in ((r[0], json.loads(r[1])) for r in rows) if value}
