"""The app's side of workstream ownership: heartbeats, read-only panes kept fresh, taking over.

A mixin of WhimbrelApp. The engine (app/engine/ownership.py, WorkstreamManager) decides who holds
what; this module runs it on timers and shows the outcome: a pane whose workstream is open in
another window is read-only and redraws as that window writes, until the user takes it over.
"""

from __future__ import annotations

import asyncio

from widgets.workstream_view import WorkstreamView


class OwnershipWiring:
    _ticking: set[str]

    def start_ownership(self) -> None:
        """Once the workspace is restored: keep this instance's leases alive, watch read-only panes."""
        from app.engine.ownership import READ_ONLY_POLL

        self._ticking = set()
        if hasattr(self.store, "guard_writes"):  # a write into a workstream taken over elsewhere is refused
            self.store.guard_writes(self.manager.ownership.owner)
            self.store.on_refused = lambda _error: self._tick("leases", self._heartbeat)  # read-only at once
        self.run_worker(self._heartbeats(), name="ownership heartbeats", group="ownership", exit_on_error=False)
        self._read_only_timer = self.set_interval(READ_ONLY_POLL, self._read_only_tick, pause=True)
        self.follow_read_only()

    _read_only_timer = None

    def follow_read_only(self) -> None:
        """Poll once a second while a pane is read-only; otherwise the timer sleeps (no idle wake-ups)."""
        if self._read_only_timer is None or self.manager is None:
            return
        if any(w.read_only for w in self.manager):
            self._read_only_timer.resume()
        else:
            self._read_only_timer.pause()

    def _read_only_tick(self) -> None:
        if any(w.read_only for w in self.manager):
            self._tick("read-only", self._poll_read_only)
        else:
            self._read_only_timer.pause()

    def _tick(self, name: str, job) -> None:
        """Run `job` on a worker unless its previous run (waiting on a busy store, say) is still going."""
        if name in self._ticking or self.manager is None:
            return
        self._ticking.add(name)

        async def run() -> None:
            try:
                await job()
            finally:
                self._ticking.discard(name)

        self.run_worker(run(), name=f"ownership {name}", group="ownership", exit_on_error=False)

    async def _heartbeats(self) -> None:
        """Every heartbeat interval, refresh the leases. One worker for the app's life: a worker per beat
        cost the idle app a Worker and its state messages every few seconds."""
        while True:
            await asyncio.sleep(self.manager.ownership.interval)
            if "leases" not in self._ticking:  # a beat asked for by a refused write may be running
                self._ticking.add("leases")
                try:
                    await self._heartbeat()
                except Exception as error:  # noqa: BLE001 - a store hiccup must not end the heartbeats
                    from app.runtime.error_log import internal_failure

                    self.notify(internal_failure("Keeping this window's workstreams open", error),
                                severity="error", timeout=10)
                finally:
                    self._ticking.discard("leases")

    async def _heartbeat(self) -> None:
        """Refresh leases; a workstream another window took over meanwhile stops here and turns read-only."""
        for workstream in await self.manager.heartbeat():
            self.cancel_turn(workstream)
            await self._show_held(workstream)

    async def _poll_read_only(self) -> None:
        for workstream in await self.manager.poll_read_only():
            await self._show_held(workstream)

    async def _show_held(self, workstream) -> None:
        """Redraw a read-only pane: banner, disabled prompt, the history as stored now."""
        view = self.main_screen.view_for(workstream.id)
        if view is None:
            return
        view.show_ownership()
        if view.history_shown:
            await view.transcript.show_history(workstream.session.messages)
        if workstream.id == self.focused_id and self.screen is self.main_screen:
            self.main_screen.set_focus(view.focus_target)
        self.refresh_chrome()

    async def on_workstream_view_take_over(self, message: WorkstreamView.TakeOver) -> None:
        """Reopen the workstream as this window's own (its other window has gone), in the same pane."""
        from app.engine.ownership import HeldElsewhere

        old = message.view.workstream
        try:
            workstream = await self.manager.take_over(old)
        except HeldElsewhere as error:
            message.view.show_ownership()
            self.notify(f"Cannot take over yet: {error}.", severity="warning", timeout=8)
            return
        except LookupError:
            self.notify("Cannot take over: this workstream has been deleted in the other window.",
                        severity="warning", timeout=8)
            return
        await message.view.remove()
        view = await self._mount_view(workstream, None)
        view.history_shown = False  # apply_layout renders it afresh
        self.apply_layout()
        self.notify(f"“{workstream.name}” is yours now: new turns run in this window.")

    async def release_ownership(self) -> None:
        """On quit: every lease goes back, so another window may open these workstreams at once."""
        if self.manager is not None and self.store is not None:
            await self.manager.ownership.release_all()
