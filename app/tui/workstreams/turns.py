"""The window's turns: each runs as a worker owned by the App, so closing a view never orphans it.

The App holds one Turns (the App passed in: its store, models, options and Textual's workers). A
prompt sent while its workstream's turn runs waits in a queue and is sent when that turn ends; at
exit the running turns are cancelled and given time to record what they had.
"""

from __future__ import annotations

import asyncio

from textual.worker import Worker, WorkerState


class Turns:
    """The running turn of each workstream (`running`, by workstream id) and the prompts queued behind it."""

    def __init__(self, app) -> None:
        self.app = app
        self.running: dict[str, Worker] = {}
        self._queued: dict[str, list[str]] = {}

    def submit(self, workstream, text: str) -> None:
        """Run a turn now, or queue it behind the running one of the same workstream."""
        app = self.app
        if workstream.read_only:
            app.notify("This workstream is open in another window: take it over first.", severity="warning")
            return
        if app.store_link.refuse(workstream, text):  # the team store does not answer: the text stays in the prompt
            return
        if app.store is not None and workstream.id:
            app.run_worker(app.store.add_prompt_history(workstream.id, text), group="history", exit_on_error=False)
        worker = self.running.get(workstream.id)
        if worker is not None and worker.is_running:
            self._queued.setdefault(workstream.id, []).append(text)
            app.notify("Queued: it is sent when the current turn ends (Esc cancels the turn).")
            return
        self.running[workstream.id] = app.run_worker(
            self._run(workstream, text), name=f"turn:{workstream.id}", group=f"turn-{workstream.id}",
            exit_on_error=False)

    async def _run(self, workstream, text: str) -> None:
        app = self.app
        await app.ready.wait()
        from app.engine.user_command import is_user_command, run_user_command

        if is_user_command(text):  # !command: the agent's bash path (approval, sandbox), output kept
            await run_user_command(workstream.session, text[1:].strip())
            return
        from app.mentions.resources import attach_mentions

        text = await attach_mentions(app, text)  # @path and @server:uri attach what they name
        from app.tui.comforts.image_attach import take_pending

        text, images = await take_pending(app, workstream, text)  # /image and pasted image paths
        await workstream.submit(text, images)
        app.workspace.refresh_chrome()  # the first prompt may have named the workstream
        if not workstream.title_generated and app.provider is not None and app.options.auto_title:
            workstream.title_generated = True
            app.run_worker(self._auto_title(workstream), group="titles", exit_on_error=False)

    async def _auto_title(self, workstream) -> None:
        """After the first exchange, a short model call names a workstream that has no alias."""
        from app.engine.titles import generate_title

        app = self.app
        title = await generate_title(app.provider, workstream.session.messages)
        if title and not workstream.alias:
            workstream.title = title
            await app.store.update_workstream(workstream.id, title=title)
            app.workspace.refresh_chrome()

    def cancel(self, workstream) -> None:
        """Esc: cancel the workstream's running turn and forget the prompts queued behind it."""
        worker = self.running.get(workstream.id) if workstream is not None else None
        if worker is not None and worker.is_running:
            self._queued.pop(workstream.id, None)
            worker.cancel()

    async def end_all(self, timeout: float = 10.0) -> None:
        """At exit: cancel the running turns and let them record what they had before the store
        closes (the partial reply, cancelled calls, a killed command's result)."""
        running = [worker for worker in self.running.values() if not worker.is_finished]
        self._queued.clear()
        for worker in running:
            worker.cancel()
        if running:
            waits = asyncio.gather(*(worker.wait() for worker in running), return_exceptions=True)
            try:
                await asyncio.wait_for(waits, timeout)
            except asyncio.TimeoutError:
                pass

    def worker_changed(self, event: Worker.StateChanged) -> None:
        """A turn's worker ended: a failed or cancelled one leaves its workstream idle or in error; one
        that did not end cancelled sends the next queued prompt."""
        worker = event.worker
        if not (worker.name or "").startswith("turn:"):
            return
        workstream_id = worker.name.split(":", 1)[1]
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            manager = self.app.manager
            workstream = manager.get(workstream_id) if manager else None
            if workstream is not None and event.state != WorkerState.SUCCESS:
                workstream.state = "idle" if event.state == WorkerState.CANCELLED else "error"
                self.app.workspace.refresh_chrome()
            queued = self._queued.get(workstream_id)
            if workstream is not None and queued and event.state != WorkerState.CANCELLED:
                self.submit(workstream, queued.pop(0))
