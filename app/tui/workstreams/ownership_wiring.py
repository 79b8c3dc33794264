"""The app's side of workstream ownership: heartbeats, read-only panes kept fresh, taking over.

The engine (app/engine/ownership.py, WorkstreamManager) decides who holds what; the App holds an
OwnershipWiring that runs it on timers and shows the outcome: a pane whose workstream is open in
another window is read-only and redraws as that window writes, until the user takes it over.

Read-only panes are polled once a second; on PostgreSQL the store also LISTENs for the other
instances' writes (app/storage/pg_listen.py) and a write into a workstream shown read-only here
polls it at once, so a follower shows each save of the owner's stream as it commits.
"""

from __future__ import annotations

import asyncio
import logging

from app.storage.reachability import StoreUnavailable
from widgets.workstream_view import WorkstreamView


class OwnershipWiring:
    """Heartbeats, read-only panes and taking over, for one App (passed in): its store, workstream
    manager, workers, timers and panes."""

    def __init__(self, app) -> None:
        self.app = app
        self._ticking: set[str] = set()
        self._again: set[str] = set()  # asked for while running: run once more when done
        self._read_only_timer = None
        self.listener = None  # PostgreSQL: the store's Listener (None on SQLite: polling alone)
        self._beat_failure = ""  # what the user was last told of a failing heartbeat (told once, not each beat)

    def start(self) -> None:
        """Once the workspace is restored: keep this instance's leases alive, watch read-only panes."""
        from app.engine.ownership import READ_ONLY_POLL

        app = self.app
        if hasattr(app.store, "guard_writes"):  # a write into a workstream taken over elsewhere is refused
            app.store.guard_writes(app.manager.ownership.owner)
            app.store.on_refused = lambda _error: self._tick("leases", self._heartbeat)  # read-only at once
        app.run_worker(self._heartbeats(), name="ownership heartbeats", group="ownership", exit_on_error=False)
        self._read_only_timer = app.set_interval(READ_ONLY_POLL, self._read_only_tick, pause=True)
        if hasattr(app.store, "listen"):
            self.listener = app.store.listen(self._store_changed)
        self.follow_read_only()

    def _store_changed(self, workstream_id: str | None) -> None:
        """Another instance wrote into `workstream_id` (None: maybe into any, after a reconnect):
        a read-only pane showing it is refreshed now rather than at the next poll."""
        manager = self.app.manager
        if manager is None:
            return
        if getattr(self.app.screen, "follows_store", False):  # the team view (/team) re-reads now too
            self.app.screen.reload()
        workstream = manager.get(workstream_id) if workstream_id is not None else None
        if (workstream is not None and workstream.read_only) or (
                workstream_id is None and any(w.read_only for w in manager)):
            self._tick("read-only", self._poll_read_only, again=True)

    def follow_read_only(self) -> None:
        """Poll once a second while a pane is read-only; otherwise the timer sleeps (no idle wake-ups)."""
        if self._read_only_timer is None or self.app.manager is None:
            return
        if any(w.read_only for w in self.app.manager):
            self._read_only_timer.resume()
        else:
            self._read_only_timer.pause()

    def _read_only_tick(self) -> None:
        if any(w.read_only for w in self.app.manager):
            self._tick("read-only", self._poll_read_only)
        else:
            self._read_only_timer.pause()

    def _tick(self, name: str, job, *, again: bool = False) -> None:
        """Run `job` on a worker unless its previous run (waiting on a busy store, say) is still going;
        `again`: then run it once more when that one ends (a write it may have missed)."""
        if self.app.manager is None:
            return
        if name in self._ticking:
            if again:
                self._again.add(name)
            return
        self._ticking.add(name)

        async def run() -> None:
            try:
                await job()
            finally:
                self._ticking.discard(name)
                if name in self._again:
                    self._again.discard(name)
                    self._tick(name, job)

        self.app.run_worker(run(), name=f"ownership {name}", group="ownership", exit_on_error=False)

    async def _heartbeats(self) -> None:
        """Every heartbeat interval, refresh the leases. One worker for the app's life: a worker per beat
        cost the idle app a Worker and its state messages every few seconds."""
        while True:
            await asyncio.sleep(self.app.manager.ownership.interval)
            if "leases" not in self._ticking:  # a beat asked for by a refused write may be running
                self._ticking.add("leases")
                try:
                    await self._heartbeat()
                    self._beat_failure = ""
                except StoreUnavailable:
                    pass  # the banner says so (app/tui/workstreams/store_link.py); the beat after it is back catches up
                except Exception as error:  # noqa: BLE001 - a store hiccup must not end the heartbeats
                    from app.runtime.error_log import internal_failure

                    told = internal_failure("Keeping this window's workstreams open", error)
                    if told != self._beat_failure:  # a full disk fails every beat: said once, until a beat works
                        self._beat_failure = told
                        self.app.notify(told, severity="error", timeout=10)
                finally:
                    self._ticking.discard("leases")

    def after_outage(self) -> None:
        """The store answers again: refresh the leases now (another window may have taken a workstream over
        while this one could not beat) and re-read the read-only panes (what was written meanwhile)."""
        self._tick("leases", self._heartbeat, again=True)
        if self.app.manager is not None and any(w.read_only for w in self.app.manager):
            self._tick("read-only", self._poll_read_only, again=True)

    async def _heartbeat(self) -> None:
        """Refresh leases; a workstream another window took over meanwhile stops here and turns read-only."""
        for workstream in await self.app.manager.heartbeat():
            self.app.turns.cancel(workstream)
            await self._show_held(workstream)

    async def _poll_read_only(self) -> None:
        for workstream in await self.app.manager.poll_read_only():
            await self._show_held(workstream)

    async def _show_held(self, workstream) -> None:
        """Redraw a read-only pane: banner, disabled prompt, the history as stored now."""
        view = self.app.main_screen.view_for(workstream.id)
        if view is None:
            return
        view.show_ownership()
        messages = workstream.session.messages
        if view.history_shown and not (workstream.streaming_elsewhere
                                       and await view.transcript.grow_last_reply(messages)):
            await view.transcript.show_history(messages)
        if workstream.id == self.app.focused_id and self.app.screen is self.app.main_screen:
            self.app.main_screen.set_focus(view.focus_target)
        self.app.workspace.refresh_chrome()

    async def take_over(self, message: WorkstreamView.TakeOver) -> None:
        """Reopen the workstream as this window's own (its other window has gone), in the same pane."""
        from app.engine.ownership import HeldElsewhere

        old = message.view.workstream
        try:
            workstream = await self.app.manager.take_over(old)
        except HeldElsewhere as error:
            message.view.show_ownership()
            self.app.notify(f"Cannot take over yet: {error}.", severity="warning", timeout=8)
            return
        except LookupError:
            self.app.notify("Cannot take over: this workstream has been deleted in the other window.",
                        severity="warning", timeout=8)
            return
        await message.view.remove()
        view = await self.app.workspace.mount_view(workstream, None)
        view.history_shown = False  # apply_layout renders it afresh
        self.app.workspace.apply_layout()
        self.app.notify(f"“{workstream.name}” is yours now: new turns run in this window.")

    async def release(self) -> None:
        """On quit: every lease goes back, so another window may open these workstreams at once."""
        if self.app.manager is not None and self.app.store is not None:
            try:
                await self.app.manager.ownership.release_all()
            except Exception as error:  # noqa: BLE001 - quitting goes on whatever the store says
                from app.runtime.error_log import LOGGER
                from app.storage.write_failed import is_write_failure

                if not is_write_failure(error):
                    raise
                # the server is gone or the disk refuses: the leases go stale by themselves (STALE_AFTER),
                # and another window can take them then
                logging.getLogger(LOGGER).warning("the leases were not given back at quit: %s", error)
