"""App glue for checkpoints: give each session its turn checkpoints, finish interrupted rewinds at
start, apply retention, and build the rewinder the /rewind screen uses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any


def repo_for(app: Any, workspace: Path | str):
    """The shadow repository of `workspace`, with the configured ignore list and size limit."""
    from app.checkpoints.shadow import ShadowRepo

    config = app.options.config
    ignore = getattr(config, "checkpoint_ignore", ()) if config is not None else ()
    limit_mb = getattr(config, "checkpoint_max_file_mb", 10.0) if config is not None else 10.0
    return ShadowRepo(app.options.data_dir, Path(workspace), ignore=ignore, max_file_size=int(limit_mb * 1024 * 1024))


def enabled(app: Any) -> bool:
    config = app.options.config
    return app.store is not None and (config is None or getattr(config, "checkpoints_enabled", True))


def attach(app: Any, session: Any) -> None:
    """Snapshot the workspace around each of `session`'s turns."""
    if enabled(app):
        from app.checkpoints.turns import TurnCheckpoints

        session.checkpoints = TurnCheckpoints(app.store, repo_for(app, session.tool_context.workspace),
                                              session.workstream_id)


def rewinder(app: Any, workstream: Any):
    """The rewinder of `workstream` (its session's workspace)."""
    from app.checkpoints.rewind import Rewinder

    session = workstream.session
    return Rewinder(app.store, repo_for(app, session.tool_context.workspace), session.workstream_id)


async def at_start(app: Any) -> list[str]:
    """Finish rewinds a killed process left half done (returns what to tell the user), then drop
    checkpoints past the retention period."""
    if not enabled(app):
        return []
    from app.checkpoints import records
    from app.checkpoints.rewind import recover

    store = app.store
    said = await store.run(recover, store.store, lambda workspace: repo_for(app, workspace))
    expired = await store.run(records.expired_checkpoints, store.store, app.options.retention_days)
    if expired:
        await store.run(records.delete_checkpoints, store.store, [i for i, _w in expired])
        for workspace in {w for _i, w in expired}:
            repo = repo_for(app, workspace)
            names = [f"turn/{i}/{side}" for i, w in expired if w == workspace for side in ("before", "after")]
            await asyncio.to_thread(_forget_and_prune, repo, names)
    return said


def _forget_and_prune(repo: Any, names: list[str]) -> None:
    try:
        repo.forget(names)
        repo.prune()
    except Exception:  # noqa: BLE001 — retention is housekeeping: a failure leaves objects, never loses any
        pass
