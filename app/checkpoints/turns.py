"""Checkpoints around one workstream's turns: a snapshot when a turn starts and when it ends.

The engine calls `begin` once the user's message is stored and `end` when the turn is over
(done, failed or cancelled). A turn whose end tree equals its start tree leaves no checkpoint.
Git runs on a worker thread, the store on its own; the event loop never waits on either.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.checkpoints import records
from app.checkpoints.outside import outside_paths
from app.checkpoints.shadow import FileChange, ShadowError, ShadowRepo, Snapshot
from app.vocabulary.messages import Message


@dataclass
class _Open:
    """The turn in progress: where its user message sits and the tree it started from."""

    user_message_id: int | None
    user_seq: int
    before: str
    skipped: tuple[str, ...]
    started: float  # when the turn began: other workstreams' turns ending after it overlapped it


class TurnCheckpoints:
    """Records a checkpoint for every turn of one workstream that changed its workspace."""

    def __init__(self, store: Any, repo: ShadowRepo, workstream_id: str) -> None:
        self.store = store  # an AsyncStore
        self.repo = repo
        self.workstream_id = workstream_id
        self._open: _Open | None = None

    async def begin(self, user_message: Message) -> str | None:
        """Snapshot before the turn changes anything; returns a warning to show, or None."""
        try:
            started = time.time()
            seq = await self.store.run(records.last_seq, self.store.store, self.workstream_id)
            snap = await asyncio.to_thread(self.repo.snapshot_kept, self._open_ref)
        except (ShadowError, OSError) as error:
            self._open = None
            return f"No checkpoint for this turn (rewind cannot undo it): {error}"
        self._open = _Open(user_message.db_id, seq, snap.tree, snap.skipped, started)
        return None

    async def end(self, turn: list[Message]) -> tuple[records.CheckpointRow | None, str | None]:
        """Snapshot after the turn; store a checkpoint when anything changed. (row or None, warning)."""
        opened, self._open = self._open, None
        if opened is None:
            return None, None
        try:
            snap, changes = await asyncio.to_thread(self._after, opened.before)
            if changes:
                theirs = await self.store.run(records.overlapping_checkpoints, self.store.store,
                                              str(self.repo.workspace), self.workstream_id, opened.started)
                if theirs:
                    changes = await asyncio.to_thread(self._own, changes, snap.tree, theirs)
            if not changes:  # nothing changed, or all of it was another workstream's doing
                await asyncio.to_thread(self.repo.forget, [self._open_ref])
                return None, None
        except (ShadowError, OSError) as error:
            return None, f"The checkpoint of this turn could not be finished: {error}"
        skipped = sorted(set(opened.skipped) | set(snap.skipped))
        outside = outside_paths(turn, Path(self.repo.workspace))
        rows = [[c.path, c.status, c.added, c.removed, c.binary] for c in changes]
        checkpoint_id, row = await self.store.run(
            _stored, self.store.store, self.workstream_id, user_message_id=opened.user_message_id,
            user_seq=opened.user_seq, workspace=str(self.repo.workspace), before_tree=opened.before,
            after_tree=snap.tree, changes=rows, skipped=skipped, outside=outside)
        try:
            await asyncio.to_thread(self._keep, checkpoint_id, opened.before, snap.tree)
        except (ShadowError, OSError) as error:
            return row, f"The checkpoint of this turn may not survive a clean-up: {error}"
        return row, None

    def _after(self, before: str) -> tuple[Snapshot, list[FileChange]]:
        """The workspace now and what changed since `before` (one trip to a worker thread)."""
        snap = self.repo.snapshot()
        return snap, self.repo.changes(before, snap.tree)

    def _own(self, changes: list, after: str, theirs: list[records.CheckpointRow]) -> list:
        """The changes that are this turn's own: a file another workstream's overlapping turn changed,
        and that is now as that turn left it, is that workstream's change (its rewind undoes it)."""
        for row in theirs:
            shared = sorted({c.path for c in changes} & {c[0] for c in row.changes})
            if shared:
                ours, left = self.repo.entries(after, shared), self.repo.entries(row.after_tree, shared)
                same = {path for path in shared if ours.get(path) == left.get(path)}
                changes = [c for c in changes if c.path not in same]
        return changes

    @property
    def _open_ref(self) -> str:
        """The ref that keeps this workstream's turn-start tree while the turn runs: another workstream
        (or process) on the workspace moves the shared index on, and a prune then must not drop it."""
        return f"open/{self.workstream_id}"

    def _keep(self, checkpoint_id: int, before: str, after: str) -> None:
        self.repo.set_refs({f"turn/{checkpoint_id}/before": before, f"turn/{checkpoint_id}/after": after},
                           drop=[self._open_ref])


def _stored(store: Any, workstream_id: str, **fields: Any) -> tuple[int, records.CheckpointRow | None]:
    """Insert a turn's checkpoint and read it back as the rewind list shows it: (id, row), in one trip to
    the database thread."""
    checkpoint_id = records.add_checkpoint(store, workstream_id, **fields)
    return checkpoint_id, records.listed_checkpoint(store, workstream_id, checkpoint_id)
