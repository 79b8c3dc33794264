"""The app's side of watches: one runner polling the store, a firing watch opening its workstream
(in the background if it is not shown) and starting a turn there, and the /watches screen."""

from __future__ import annotations

from typing import Any

DEFAULT_TICK = 60.0  # seconds at most between the runner's reads of the store (a watch made here wakes it at once)


async def _opened(app: Any, workstream_id: str) -> Any | None:
    """The workstream, opened in the background if it is not (None when it was deleted)."""
    workstream = app.manager.get(workstream_id)
    if workstream is None:
        try:
            await app.workspace.open_workstream(workstream_id, show=False)
        except LookupError:
            return None  # deleted meanwhile
        workstream = app.manager.get(workstream_id)
    return workstream


async def vet_poll(app: Any, row: dict[str, Any]) -> Any:
    """Each poll goes through its workstream's permission gate, judged as that bash command: refused
    when the gate denies it now; otherwise run in the workstream's workspace (or worktree), sandboxed.
    Its creation was approved (or allowed by a rule), so a poll that would ask runs without asking.
    Every poll writes an audit row in its workstream (tool `watch`, action `poll`)."""
    from app.engine.watches import PollPermit
    from app.permissions.watch_calls import poll_view

    workstream = await _opened(app, row["workstream_id"])
    session = getattr(workstream, "session", None)
    guard = getattr(session, "guard", None)
    if guard is None:
        return PollPermit(refused="its workstream is gone") if workstream is None else PollPermit()
    verdict = guard.gate.decide(poll_view(row["command"]))
    refused = verdict.outcome == "deny"
    decided_by = verdict.decided_by if verdict.outcome != "ask" else \
        f"watch: runs as its approved creation allowed ({verdict.why})"

    async def record(status: str, duration: float | None) -> None:
        await guard.record_row(call_id=f"watch-{row['id']}-{row['polls'] + 1}", tool="watch",
                               args={"action": "poll", "name": row["name"], "command": row["command"]},
                               verdict=verdict, decision="refused" if refused else "allowed", status=status,
                               duration=duration, workstream_id=row["workstream_id"], decided_by=decided_by,
                               sandboxed=not refused, network=verdict.network)

    if refused:
        return PollPermit(refused=verdict.why, record=record)
    return PollPermit(workspace=session.tool_context.workspace, wrap=guard.wrapper("bash", verdict.network),
                      record=record)


def start_watches(app: Any) -> None:
    """Once the workspace is restored: poll due watches on a worker (Textual stops it at exit)."""
    from app.engine.watches import WatchRunner

    async def fire(workstream_id: str, text: str) -> None:
        workstream = await _opened(app, workstream_id)
        if workstream is not None:
            app.turns.submit(workstream, text)

    async def vet(row: dict[str, Any]) -> Any:
        return await vet_poll(app, row)

    runner = WatchRunner(app.store, fire, app.options.workdir.resolve(), tick=getattr(app, "watch_tick", DEFAULT_TICK),
                         vet=vet)
    app.run_worker(runner.run_forever(), name="watches", group="watches", exit_on_error=False)


async def show_watches(app: Any) -> None:
    from app.tui.screens.watches import WatchesScreen
    from app.storage import watch_store

    rows = await app.store.run(watch_store.active, app.store.store)
    titles = {w.id: w.name for w in app.manager}

    async def cancel(watch_id: str) -> None:
        await app.store.run(watch_store.finish, app.store.store, watch_id, "cancelled")

    await app.push_screen(WatchesScreen(rows, titles, cancel))
