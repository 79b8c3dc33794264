"""Rewind a workstream to before one of its user messages: files, conversation, or both; and undo.

A rewind is journalled (`checkpoint_ops`, state 'pending') before anything changes; the files are
then restored (idempotent: the workspace is made equal to a tree) and the conversation is cut in
the same transaction that marks the rewind done. A process killed in between leaves a pending row,
which `recover` finishes at the next start, and says so. The tree the workspace had just before
is kept, so the rewind itself can be undone.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable

from app.checkpoints import records
from app.checkpoints.shadow import FileChange, RestoreResult, ShadowRepo

MODES = ("both", "files", "conversation")


class RewindError(RuntimeError):
    """A rewind or undo that cannot be done; the message says why, in words for the user."""


@dataclass
class TurnSummary:
    """One user message as the rewind list shows it, with what its turn changed."""

    turn: records.UserTurn
    changes: list[list[Any]] = field(default_factory=list)  # [path, status, added, removed, binary]
    skipped: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(c[2] for c in self.changes)

    @property
    def removed(self) -> int:
        return sum(c[3] for c in self.changes)


@dataclass
class RewindPlan:
    """What rewinding to before `turn` would do, computed before anything changes."""

    turn: records.UserTurn
    current_tree: str
    target_tree: str | None  # None: no turn from here on changed files
    changes: list[FileChange]  # from the workspace now to the target
    undone_patch: str  # the diff that the rewind undoes (target → now)
    hand_changed: list[str]  # changed since Whimbrel last left the workspace, and about to be overwritten
    skipped: list[str]
    outside: list[str]
    messages_after: int  # messages the conversation loses
    others: dict[str, str] = field(default_factory=dict)  # path → the other workstream that changed it since: left alone


@dataclass
class RewindOutcome:
    """What a rewind (or undo) did."""

    op_id: int
    mode: str
    restored: RestoreResult
    messages: int  # removed (rewind) or put back (undo)
    note: str = ""


def _state_tree(repo: ShadowRepo) -> str:
    return repo.snapshot().tree


class Rewinder:
    """Rewinds and undoes them for one workstream in one workspace."""

    def __init__(self, store: Any, repo: ShadowRepo, workstream_id: str) -> None:
        self.store = store  # an AsyncStore
        self.repo = repo
        self.workstream_id = workstream_id

    async def _db(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await self.store.run(fn, self.store.store, *args, **kwargs)

    async def turns(self) -> list[TurnSummary]:
        """Every user message of the workstream with what its turn changed, oldest first."""
        turns = await self._db(records.user_turns, self.workstream_id)
        checkpoints = await self._db(records.list_checkpoints, self.workstream_id)
        summaries = [TurnSummary(t) for t in turns]
        for row in checkpoints:
            owner = next((s for s in reversed(summaries) if s.turn.seq <= row.user_seq), None)
            if owner is not None:
                owner.changes += row.changes
                owner.skipped += row.skipped
                owner.outside += row.outside
        return summaries

    async def plan(self, seq: int) -> RewindPlan:
        """What rewinding to before the user message at `seq` would do."""
        turns = await self._db(records.user_turns, self.workstream_id)
        turn = next((t for t in turns if t.seq == seq), None)
        if turn is None:
            raise RewindError("That message is no longer in this workstream's history.")
        checkpoints = [c for c in await self._db(records.list_checkpoints, self.workstream_id) if c.user_seq >= seq]
        last_known = await self._db(records.last_known_tree, str(self.repo.workspace))
        after = await self._db(records.messages_from, self.workstream_id, seq)
        others = await self._others_since(await self._db(records.message_time, self.workstream_id, seq))
        return await asyncio.to_thread(self._plan, turn, checkpoints, last_known, after, others)

    async def _others_since(self, since: float | None) -> dict[str, str]:
        """Files other workstreams on this workspace changed (in turns, or by rewinding) after `since`."""
        if since is None:
            return {}
        workspace = str(self.repo.workspace)
        found = await self._db(records.changed_by_others, workspace, self.workstream_id, since)
        for old, new, who in await self._db(records.rewinds_by_others, workspace, self.workstream_id, since):
            for change in await asyncio.to_thread(self.repo.changes, old, new):
                found[change.path] = who
        return found

    def _spare(self, current: str, target: str, others: dict[str, str]) -> tuple[str, dict[str, str]]:
        """`target` with the files other workstreams changed (and the restore would touch) kept as they
        are now; returns that tree and the files spared."""
        spared = {c.path: others[c.path] for c in self.repo.changes(current, target) if c.path in others}
        return self.repo.overlay(target, current, sorted(spared)), spared

    def _plan(self, turn: records.UserTurn, checkpoints: list[records.CheckpointRow], last_known: str | None,
              messages_after: int, others: dict[str, str]) -> RewindPlan:
        current = _state_tree(self.repo)
        target = checkpoints[0].before_tree if checkpoints else None
        spared: dict[str, str] = {}
        if target and others:
            target, spared = self._spare(current, target, others)
        changes = self.repo.changes(current, target) if target else []
        hand: list[str] = []
        if last_known and last_known != current and changes:
            by_hand = {c.path for c in self.repo.changes(last_known, current)}
            hand = sorted(by_hand & {c.path for c in changes})
        skipped = sorted({s for c in checkpoints for s in c.skipped})
        outside = sorted({o for c in checkpoints for o in c.outside})
        patch = self.repo.patch(target, current) if target else ""
        return RewindPlan(turn, current, target, changes, patch, hand, skipped, outside, messages_after, spared)

    async def apply(self, plan: RewindPlan, mode: str) -> RewindOutcome:
        """Rewind as planned: 'both', 'files' only or 'conversation' only."""
        if mode not in MODES:
            raise RewindError(f"unknown rewind mode '{mode}' (use one of {', '.join(MODES)})")
        files = mode in ("both", "files") and plan.target_tree is not None
        now = await asyncio.to_thread(_state_tree, self.repo)
        op_id = await self._db(records.begin_op, self.workstream_id, kind="rewind", mode=mode,
                               workspace=str(self.repo.workspace), from_tree=now,
                               to_tree=plan.target_tree if files else None,
                               cut_seq=plan.turn.seq if mode in ("both", "conversation") else None)
        restored = RestoreResult()
        if files:
            restored = await asyncio.to_thread(self._restore, op_id, now, plan.target_tree)
        count = await self._db(records.finish_op, op_id)
        return RewindOutcome(op_id, mode, restored, count)

    async def files_to(self, tree: str) -> RestoreResult:
        """Restore the files to `tree` (a fork's files), journalled as a files rewind: undoable."""
        now = await asyncio.to_thread(_state_tree, self.repo)
        op_id = await self._db(records.begin_op, self.workstream_id, kind="rewind", mode="files",
                               workspace=str(self.repo.workspace), from_tree=now, to_tree=tree, cut_seq=None)
        restored = await asyncio.to_thread(self._restore, op_id, now, tree)
        await self._db(records.finish_op, op_id)
        return restored

    def _restore(self, op_id: int, before: str, target: str) -> RestoreResult:
        self.repo.set_refs({f"op/{op_id}/from": before, f"op/{op_id}/to": target})
        return self.repo.restore(target)

    async def undo(self) -> RewindOutcome:
        """Undo the workstream's last rewind: the files as they were just before it, and the
        conversation back (unless it has gone on since, which the note then says)."""
        op = await self._db(records.last_undoable, self.workstream_id)
        if op is None:
            raise RewindError("There is no rewind to undo in this workstream.")
        mode, note = op.mode, ""
        moved_on = op.cut_seq is not None and await self._db(records.last_seq, self.workstream_id) >= op.cut_seq
        if moved_on and op.mode == "both":
            mode, note = "files", "The conversation has gone on since the rewind, so only the files were put back."
        elif moved_on:
            note = "The conversation has gone on since the rewind, so its removed messages follow the newest ones."
        files = op.to_tree is not None and mode in ("both", "files")
        now = await asyncio.to_thread(_state_tree, self.repo)
        target = op.from_tree
        others = await self._others_since(await self._db(records.op_finished_at, op.id)) if files else {}
        if files and others:
            target, spared = await asyncio.to_thread(self._spare, now, target, others)
            if spared:
                note = " ".join(filter(None, [note, "Left as another workstream changed them since the rewind: "
                                              + ", ".join(sorted(spared)) + "."]))
        undo_id = await self._db(records.begin_op, self.workstream_id, kind="undo", mode=mode,
                                 workspace=op.workspace, from_tree=now,
                                 to_tree=target if files else None, cut_seq=None, undoes=op.id)
        restored = RestoreResult()
        if files:
            restored = await asyncio.to_thread(self._restore, undo_id, now, target)
        count = await self._db(records.finish_op, undo_id)
        return RewindOutcome(undo_id, mode, restored, count, note)


def recover(store: Any, repo_for: Callable[[str], ShadowRepo]) -> list[str]:
    """Finish every rewind a killed process left half done (synchronous; run it on the store's
    thread at start). Returns one sentence per rewind, for the user."""
    said = []
    for op in records.pending_ops(store):
        what = "rewind" if op.kind == "rewind" else "undo of a rewind"
        try:
            if op.to_tree:
                repo_for(op.workspace).restore(op.to_tree)
            count = records.finish_op(store, op.id)
        except Exception as error:  # noqa: BLE001 — said to the user, the row stays pending
            said.append(f"A {what} interrupted by a crash could not be finished: {error}")
            continue
        parts = []
        if op.to_tree:
            parts.append(f"files restored in {op.workspace}")
        if op.kind == "rewind" and op.cut_seq is not None:
            parts.append(f"{count} message(s) removed")
        elif op.kind == "undo" and op.mode != "files":
            parts.append(f"{count} message(s) put back")
        said.append(f"Whimbrel was stopped in the middle of a {what}; it was completed now, at start: "
                    f"{', '.join(parts) or 'nothing left to do'}.")
    return said
