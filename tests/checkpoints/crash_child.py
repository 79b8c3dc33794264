"""Run in a child process by test_crash.py: rewind, and SIGKILL ourselves at the point named in argv."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from app.checkpoints import records
from app.checkpoints.rewind import Rewinder
from app.checkpoints.shadow import ShadowRepo
from app.storage.async_store import AsyncStore


def die(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


async def main(data_dir: Path, workspace: Path, workstream_id: str, point: str, kind: str) -> None:
    store = await AsyncStore.open(data_dir / "whimbrel.db")
    repo = ShadowRepo(data_dir, workspace)
    rewinder = Rewinder(store, repo, workstream_id)
    if point == "before-files":
        ShadowRepo.restore = die
    elif point == "mid-files":
        real_remove = ShadowRepo._remove
        ShadowRepo._remove = lambda self, path: (real_remove(self, path), die())
    elif point == "before-commit":
        records.finish_op = die
    if kind == "undo":
        await rewinder.undo()
    else:
        [turn] = await rewinder.turns()
        await rewinder.apply(await rewinder.plan(turn.turn.seq), "both")
    print("not killed", flush=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]))
