"""The app's side of watches: one runner polling the store, a firing watch opening its workstream
(in the background if it is not shown) and starting a turn there, and the /watches screen."""

from __future__ import annotations

from typing import Any

DEFAULT_TICK = 5.0


def start_watches(app: Any) -> None:
    """Once the workspace is restored: poll due watches on a worker (Textual stops it at exit)."""
    from app.engine.watches import WatchRunner

    async def fire(workstream_id: str, text: str) -> None:
        workstream = app.manager.get(workstream_id)
        if workstream is None:
            try:
                await app.open_workstream(workstream_id, show=False)
            except LookupError:
                return  # deleted meanwhile
            workstream = app.manager.get(workstream_id)
        if workstream is not None:
            app.submit_prompt(workstream, text)

    runner = WatchRunner(app.store, fire, app.options.workdir.resolve(), tick=getattr(app, "watch_tick", DEFAULT_TICK))
    app.run_worker(runner.run_forever(), name="watches", group="watches", exit_on_error=False)


async def show_watches(app: Any) -> None:
    from app.screens.watches import WatchesScreen
    from app.storage import watch_store

    rows = await app.store.run(watch_store.active, app.store.store)
    titles = {w.id: w.name for w in app.manager}

    async def cancel(watch_id: str) -> None:
        await app.store.run(watch_store.finish, app.store.store, watch_id, "cancelled")

    await app.push_screen(WatchesScreen(rows, titles, cancel))
