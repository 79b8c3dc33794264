"""The Textual application: boots storage and the workstream off the UI thread, runs turns as workers."""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from pathlib import Path

from textual.app import App
from textual.worker import Worker, WorkerState

from app.bridge import make_emitter
from app.providers.base import ModelSettings
from app.screens.main import MainScreen
from styles import STYLES_DIR


@dataclass
class AppOptions:
    """Everything the CLI resolved: model (None = not configured), places, and what to resume."""

    settings: ModelSettings | None
    workdir: Path
    data_dir: Path
    config_path: Path
    resume: str | None = None
    bash_timeout: float = 120.0
    output_limit: int = 30000


class WhimbrelApp(App):
    TITLE = "Whimbrel"
    CSS_PATH = [STYLES_DIR / name for name in
                ("main.tcss", "transcript.tcss", "tool_card.tcss", "approval.tcss")]

    def __init__(self, options: AppOptions) -> None:
        super().__init__()
        self.options = options
        self.workstream = None
        self.store = None
        self.provider = None
        self.ready = asyncio.Event()
        self._turn: Worker | None = None
        self._queued: list[str] = []
        self.retry_base_delay = 1.0  # seconds; tests shorten it

    def get_default_screen(self) -> MainScreen:
        return MainScreen()

    @property
    def main_screen(self) -> MainScreen:
        return self.screen_stack[0]  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.run_worker(self._boot(), name="boot", group="boot", exit_on_error=False)

    async def _boot(self) -> None:
        """Open storage, load tools and (maybe) the resumed conversation, warm the SDK import."""
        from app.engine.session import Session
        from app.engine.workstream import Workstream
        from app.storage.async_store import AsyncStore
        from tools.context import ToolContext
        from tools.registry import ToolRegistry

        options = self.options
        screen = self.main_screen
        pane = screen.pane
        self.store = await AsyncStore.open(options.data_dir / "whimbrel.db")
        registry = await asyncio.to_thread(ToolRegistry.load_builtin)
        provider = None
        if options.settings is not None:
            from app.providers.registry import make_provider

            provider = self.provider = make_provider(options.settings)
        context = ToolContext(workspace=options.workdir.resolve(), bash_timeout=options.bash_timeout,
                              output_limit=options.output_limit)
        messages, workstream_id, title = [], "", ""
        if options.resume:
            try:
                info = await self.store.find_workstream(options.resume)
            except LookupError as error:
                await pane.transcript.add_notice(str(error), "error")
            else:
                workstream_id, title = info.id, info.title or info.alias or ""
                messages = await self.store.load_messages(info.id)
        session = Session(workstream_id=workstream_id, provider=provider, registry=registry,
                          tool_context=context, emit=make_emitter(pane), store=self.store, messages=messages,
                          retry_base_delay=self.retry_base_delay)
        self.workstream = Workstream(session, store=self.store, title=title,
                                     model=options.settings.model if options.settings else "",
                                     workdir=str(context.workspace))
        if messages:
            await pane.transcript.show_history(messages)
            await pane.transcript.add_notice(f"Resumed workstream {workstream_id[:8]} ({len(messages)} messages).")
        screen.refresh_bars()
        if options.settings is None:
            await screen.show_setup(str(options.config_path))
        else:
            screen.query_one("#status-bar").model = options.settings.model
            screen.query_one("#status-bar").context_window = options.settings.context_window
        self.ready.set()
        if provider is not None:
            await asyncio.to_thread(importlib.import_module, "openai")

    # -- turns ---------------------------------------------------------------------------
    def submit_prompt(self, text: str) -> None:
        """Run a turn now, or queue it behind the running one."""
        if self._turn is not None and self._turn.is_running:
            self._queued.append(text)
            self.notify("Queued: it will be sent when the current turn ends (Esc cancels the turn).")
            return
        self._turn = self.run_worker(self._run_turn(text), name="turn", group="turn", exit_on_error=False)

    async def _run_turn(self, text: str) -> None:
        await self.ready.wait()
        await self.workstream.submit(text)

    def cancel_turn(self) -> None:
        if self._turn is not None and self._turn.is_running:
            self._queued.clear()
            self._turn.cancel()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """One place for worker outcomes: errors become a message, finished turns start queued ones."""
        worker = event.worker
        if event.state == WorkerState.ERROR:
            error = worker.error
            self.run_worker(self.main_screen.pane.transcript.add_notice(
                f"{worker.name} failed: {type(error).__name__}: {error}", "error"), group="notice")
        if worker.group == "turn" and event.state in (WorkerState.SUCCESS, WorkerState.ERROR,
                                                       WorkerState.CANCELLED):
            if self.workstream is not None and event.state != WorkerState.SUCCESS:
                self.workstream.state = "idle" if event.state == WorkerState.CANCELLED else "error"
                self.main_screen.refresh_bars()
            if self._queued and event.state != WorkerState.CANCELLED:
                self.submit_prompt(self._queued.pop(0))

    async def on_unmount(self) -> None:
        if self.provider is not None:
            await self.provider.close()
        if self.store is not None:
            await self.store.aclose()
