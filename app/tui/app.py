"""The Textual application: owns the workstream manager, the pane layout and every turn worker.

Booting (storage, tools, saved tabs) runs in a worker after the first frame; turns run as
workers owned by the app (app/tui/workstreams/turns.py), so closing a view never orphans a running turn.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from textual import events, on
from textual.worker import Worker, WorkerState

from app.engine.loop_watchdog import log_holds
from app.engine.layout import LayoutTree
from app.mentions.files import MentionIndex
from app.providers.base import ModelSettings
from app.runtime import startup_gc
from app.runtime.idle_gc import IDLE_SECONDS, collect_if_due, tune_interpreter_for_input, when_due
from app.tui import checkpoint_wiring
from app.tui.comforts.attention import Attention
from app.tui.comforts.daily_actions import DailyActions
from app.tui.lifecycle import quit_signals
from app.tui.lifecycle.early_keys import EarlyKeys
from app.tui.lifecycle.sdk_warmup import SdkWarmup
from app.tui.mcp.mcp_wiring import McpWiring
from app.tui.permissions.permission_wiring import PermissionWiring
from app.tui.screens.main import MainScreen
from app.tui.workstreams.ownership_wiring import OwnershipWiring
from app.tui.workstreams.store_link import StoreLinkWiring
from app.tui.workstreams.turns import Turns
from app.tui.workstreams.workspace_ops import WorkspaceOps
from styles import STYLES_DIR
from widgets import terminal_graphics, terminal_guard
from widgets.dialog_footer import follow_dialogs
from widgets.footer import KeysFooter
from widgets.textual_internals import ScreensPaintAfterBatch
from widgets.workstream_view import WorkstreamView

BOOT_AT_THE_LATEST = 0.5  # seconds after mount: boot starts then even if no footer has shown its keys


def _import_engine() -> None:
    """Import the engine and tools on a worker thread: the UI keeps painting meanwhile."""
    import app.engine.workstreams  # noqa: F401  (session, tools, providers follow)
    import app.storage.async_store  # noqa: F401


@dataclass
class AppOptions:
    """Everything the CLI resolved: model (None = not configured), places, limits, what to resume."""

    settings: ModelSettings | None
    workdir: Path
    data_dir: Path
    config_path: Path
    resume: str | None = None
    bash_timeout: float = 120.0
    output_limit: int = 30000
    max_open: int = 20
    retention_days: int = 90
    bell: bool = True
    notifications: bool = True
    auto_title: bool = True
    models: Any = None  # a ModelRegistry; built from `settings` alone when None
    config: Any = None  # the loaded app.settings.config.Config (MCP servers and their settings)
    auto_compact_pct: float = 80.0
    worktree: bool = False  # --worktree: the first workstream works in its own git worktree
    bypass: bool = False  # --dangerously-bypass-approvals: the permission mode is bypass everywhere
    saved_tabs: Any = None  # a Future of app.storage.peek.saved_tabs, started by the CLI (None: read at mount)


# What each group of background workers does, in words, for the sentence shown when one fails.
WORKER_TASKS = {
    "boot": "Starting up", "titles": "Naming the workstream", "history": "Saving the prompt history",
    "open": "Opening the workstream", "model": "Switching the model", "setup": "Applying the new config",
    "browser": "Opening the browser", "command": "Running the command", "cost": "Adding up the costs",
    "delete": "Deleting the workstream", "open-url": "Opening the link", "persist-layout": "Saving the layout",
    "sign-in": "Signing in", "transcript-page": "Showing earlier messages",
    "transcript-settle": "Laying out the transcript", "editor": "Opening the editor",
    "theme": "Saving the theme", "mention-index": "Listing the workspace's files",
    "settings": "Saving the settings", "image": "Attaching the image",
    "first-frame": "Showing the saved tabs", "sdk": "Loading the model's SDK",
}
PER_WORKSTREAM_TASKS = {"turn-": "Running the turn", "history-": "Showing the conversation"}  # group + id


def worker_task(worker: Worker) -> str:
    """`worker`'s job as a phrase, such as "Naming the workstream"."""
    group = worker.group or ""
    for prefix, task in PER_WORKSTREAM_TASKS.items():
        if group.startswith(prefix):
            return task
    return WORKER_TASKS.get(group, "A background task")


def storage_reason(error: Exception) -> str:
    """Why the database would not open, in words: the OS's or SQLite's own message, else an
    internal failure (logged)."""
    import sqlite3

    if isinstance(error, OSError) and error.strerror:
        text = error.strerror + (f": {error.filename}" if error.filename else "")
    elif isinstance(error, sqlite3.Error) and str(error):
        text = str(error)
    else:
        from app.runtime.error_log import internal_failure

        text = internal_failure("Opening the database", error)
    return text.splitlines()[0][:300]


class WhimbrelApp(ScreensPaintAfterBatch):
    """The window: boots the engine, holds each feature's glue as an object (the App passed in, its
    state its own: `workspace`, `turns`, `permissions`, `mcp`, `ownership`, `daily`, …) and keeps what
    they share (options, store, models, the workstream manager, the layout and the focused workstream).

    Its one base class, ScreensPaintAfterBatch (widgets/textual_internals.py), is Textual's App with a
    private method overridden so that every visible screen paints its changes when a batch update
    ends: a fix to Textual's internals, not a feature, so it stays a base class."""

    TITLE = "Whimbrel"
    # Dialog styles load with their screens (CSS_PATH there), keeping them off the first frame.
    CSS_PATH = [STYLES_DIR / name for name in ("main.tcss", "transcript.tcss", "tool_card.tcss")]

    def __init__(self, options: AppOptions) -> None:
        terminal_guard.install()  # before any widget exists: no text reaches the terminal raw
        super().__init__()
        self.options = options
        self.store = None
        self.memory_service = None  # app/memory/service.py, once the store is open
        self.models = None  # ModelRegistry, None until a model is configured
        self.manager = None
        self.layout_tree: LayoutTree | None = None
        self.focused_id = ""
        self.ready = asyncio.Event()
        self.retry_base_delay = 1.0  # seconds; tests shorten it
        self.attention = Attention(self, bell=options.bell, notifications=options.notifications)
        self.sdk_warmup = SdkWarmup(self)  # the first key typed imports the model's SDK
        self.early_keys = EarlyKeys(deliver=super().on_event)  # keys before the prompt has focus
        self.ownership = OwnershipWiring(self)  # leases, read-only panes, taking over
        self.store_link = StoreLinkWiring(self)  # the team store not answering: the banner, prompts kept
        self.daily = DailyActions(self)  # look, settings, copying, pasted images
        self.workspace = WorkspaceOps(self)  # tabs and panes: open, close, split, focus, approvals shown
        self.permissions = PermissionWiring(self)  # rules, modes, /network, the policy and audit screens
        self.mcp = McpWiring(self)  # the MCP servers: their manager, the inspector, /mcp
        self.turns = Turns(self)  # each workstream's running turn and the prompts queued behind it
        self._boot_started = False
        self._first_frame_waiting = {"footer", "tabs"}  # painted before boot starts (first_frame_part_shown)
        self.quit_signal: int | None = None  # SIGTERM or SIGHUP when one ended the app (app/tui/lifecycle/quit_signals.py)
        self.temporary_store = False  # the data dir's store could not be opened: nothing is kept
        self.mention_index = MentionIndex(options.workdir)  # @-mention completion (listed on first use)
        self.pending_images: dict[str, list[dict]] = {}  # per workstream, for its next message (app/tui/comforts/image_attach.py)
        self.image_protocol = terminal_graphics.detect(os.environ, getattr(options.config, "images", "auto"))

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = False) -> None:
        """Textual's toast, never read as markup: messages carry server names, titles and errors.

        `markup` is accepted because widgets and screens pass it on (as True); it is ignored.
        """
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def get_default_screen(self) -> MainScreen:
        return MainScreen()

    @property
    def main_screen(self) -> MainScreen:
        return self.screen_stack[0]  # type: ignore[return-value]

    @property
    def workstream(self):
        """The focused workstream (None before boot)."""
        return self.manager.get(self.focused_id) if self.manager is not None else None

    def on_load(self) -> None:
        quit_signals.install(self)  # before the terminal is taken over, so a signal always restores it

    def on_mount(self) -> None:
        # Boot once the first frame is complete (the footer's keys and the saved tabs painted): its
        # imports, on a thread, would slow that frame down; BOOT_AT_THE_LATEST in case one never shows.
        self.set_timer(BOOT_AT_THE_LATEST, self.start_boot)
        follow_dialogs(self)  # each dialog's footer shows its own keys
        self.daily.apply_look()

    async def on_event(self, event: events.Event) -> None:
        if not await self.early_keys.took(event):
            await super().on_event(event)

    async def on_workstream_view_take_over(self, message: WorkstreamView.TakeOver) -> None:
        await self.ownership.take_over(message)

    def action_change_theme(self) -> None:  # Textual's "Change theme" command: Whimbrel's picker
        self.daily.change_theme()

    def on_prompt_input_echoed(self) -> None:
        self.sdk_warmup.key_typed()

    @on(KeysFooter.KeysShown)
    def footer_shown(self) -> None:
        self.first_frame_part_shown("footer")

    def first_frame_part_shown(self, part: str) -> None:
        """`part` of the first frame ("footer", "tabs": app/tui/lifecycle/first_frame.py) is on screen; boot starts
        once all are."""
        self._first_frame_waiting.discard(part)
        if not self._first_frame_waiting:
            self.start_boot()

    def start_boot(self) -> None:
        if not self._boot_started:
            self._boot_started = True
            startup_gc.release()  # the CLI held collections until the first frame (app/runtime/startup_gc.py)
            self.run_worker(self._boot, name="boot", group="boot", exit_on_error=False)

    async def _boot(self) -> None:
        """Open storage, prune, load tools, restore saved tabs and panes, warm the SDK import."""
        await asyncio.to_thread(_import_engine)
        from app.engine.workstreams import WorkstreamManager
        from app.storage.async_store import AsyncStore
        from app.tui.permissions.watch_wiring import start_watches
        from tools.registry import ToolRegistry

        options = self.options
        await asyncio.to_thread(self._install_error_log)  # first: opening the store may need it
        self.store = await self._open_store(AsyncStore)
        if self.store is None:
            return  # the user chose to quit
        self.store_link.start()
        open_tabs = await self.store.get_app_state("tabs") or []
        await self.store.prune(options.retention_days, keep=tuple(open_tabs))
        recovered = await checkpoint_wiring.at_start(self)  # finishes a rewind a crash cut short
        self.registry = await asyncio.to_thread(ToolRegistry.load_builtin)
        from app.memory.service import MemoryService
        from app.memory.limits import MemoryLimits
        self.memory_service = MemoryService(self.store, options.config_path.parent,  # memories and recall (app/memory/)
                                            MemoryLimits.from_config(options.config))  # [memory] limits
        await self.permissions.load()  # app/tui/permissions/permission_wiring.py
        self.models = options.models or self._registry_for(options.settings)
        self.manager = WorkstreamManager(
            store=self.store, session_factory=self._make_session, max_open=options.max_open,
            model=options.settings.model if options.settings else "", workdir=str(options.workdir.resolve()))
        await self.workspace.restore()  # the prompt is usable from here on
        recovered += await checkpoint_wiring.start_in_worktree(self) if options.worktree else []
        self.ownership.start()
        start_watches(self)
        problems = self.mcp.start()  # connects in the background; sessions get the tools as they come
        for problem in recovered + problems:
            await self.main_screen.view_for(self.focused_id).transcript.add_notice(problem, "warning")
        if self.models is None:
            await self.main_screen.show_setup(str(options.config_path))
        self.ready.set()
        if self.models is None:
            self.open_setup()
        else:
            self.sdk_warmup.boot_done()  # otherwise the first key typed starts it
        if not self.is_headless:
            tune_interpreter_for_input()
            checks = self.set_interval(1.0, lambda: self.collect_garbage_when_idle() and checks.pause(), pause=True)
            when_due(partial(asyncio.get_running_loop().call_soon_threadsafe, checks.resume))  # app/runtime/idle_gc.py
            log_holds(asyncio.get_running_loop())  # a callback holding the loop > 250 ms: its stack to the error log

    def collect_garbage_when_idle(self) -> bool:
        """A full garbage collection, if one is due, while nothing streams and nobody types."""
        from widgets.prompt import PromptInput

        typing = time.monotonic() - PromptInput.last_typed < IDLE_SECONDS
        streaming = self.manager is not None and any(w.busy for w in self.manager)
        return collect_if_due(idle=not (typing or streaming))

    async def _open_store(self, store_class):
        """Open the database; when that fails, say why and let the user retry, go on with a
        temporary store (deleted at exit), or quit. Returns None when quitting."""
        from app.storage.location import chosen_or_file, shown_url

        chosen, problem = chosen_or_file(self.options.data_dir, self.options.config)  # SQLite or a team's PostgreSQL
        if problem:
            self.notify(problem, severity="error", timeout=30)
        path, connect_args = chosen.location, chosen.connect_args
        while True:
            try:
                store = await store_class.open(path, connect_args)
                store.on_lost = self._store_lost
                return store
            except Exception as error:  # noqa: BLE001 - any cause (permissions, disk, corruption) gets a way out
                from app.tui.screens.storage_error import StorageErrorScreen

                reason = storage_reason(error)
                choice = await self.push_screen(StorageErrorScreen(shown_url(path), reason), wait_for_dismiss=True)
            if choice == "quit":
                self.exit(return_code=1, message=f"Whimbrel could not open {shown_url(path)}: {reason}")
                return None
            if choice == "temporary":
                import tempfile

                self._temporary_data = tempfile.TemporaryDirectory(prefix="whimbrel-temporary-")
                self.temporary_store = True
                path, connect_args = Path(self._temporary_data.name) / "whimbrel.db", {}
                self.notify("Using a temporary store: nothing from this session is kept after you quit.",
                            severity="warning", timeout=10)

    async def action_quit(self) -> None:
        """Ctrl+Q (Textual's quit key, checked before any screen's): on the storage error dialog it is
        the dialog's own quit, so every way out of it exits with the same status (1)."""
        from app.tui.screens.storage_error import StorageErrorScreen

        if isinstance(self.screen, StorageErrorScreen):
            self.screen.dismiss("quit")
        else:
            await super().action_quit()

    def _install_error_log(self) -> None:
        """Internal errors go to <data dir>/whimbrel.log, the configured API keys masked."""
        from app.runtime.error_log import install

        models, settings = self.options.models, self.options.settings
        keys = [s.api_key for s in models.models.values()] if models is not None else []
        keys += [settings.api_key] if settings is not None else []
        install(self.options.data_dir, secrets=[k for k in keys if k])

    def _store_lost(self, explanation: str) -> None:
        """The store file was deleted while running: say so where the user is looking, and keep it shown."""
        self.notify(explanation, title="Not saved", severity="error", timeout=30)
        view = self.main_screen.view_for(self.focused_id) if self.manager is not None else None
        if view is not None:
            self.run_worker(view.transcript.add_notice(explanation, "error"), group="notices", exit_on_error=False)

    @staticmethod
    def _registry_for(settings: ModelSettings | None):
        """A one-model registry for a model given without a config (e.g. tests, --model alone)."""
        if settings is None:
            return None
        from app.providers.models import ModelRegistry

        alias = settings.alias or "default"
        return ModelRegistry({alias: settings}, default=alias)

    @property
    def provider(self):
        """The provider for background calls (titles): the agent model, else the default."""
        if self.models is None or self.models.default is None:
            return None
        return self.models.provider(self.models.agent_model or self.models.default)

    def _make_session(self, workstream_id, saved, listener):
        """A Session for a workstream, restored from its SavedState (model, /clear point, compaction)."""
        from app.engine.memory_context import attach_memory
        from app.tui.workstreams.agent_wiring import agent_session
        from app.engine.session import Session
        from app.engine.tool_setup import configure_tools
        from tools.context import ToolContext

        if (external := agent_session(self, workstream_id, saved, listener)) is not None:
            return external  # a workstream driven by an external ACP agent ([agents.NAME])
        context = ToolContext(workspace=self.options.workdir.resolve(), bash_timeout=self.options.bash_timeout,
                              output_limit=self.options.output_limit)
        alias = saved.model_alias if self.models is not None and saved.model_alias in self.models else None
        session = Session(workstream_id=workstream_id, provider=None, tool_context=context,
                          registry=self.mcp.session_registry(self.registry), emit=listener, store=self.store,
                          messages=saved.messages, context_start=saved.context_start, retry_base_delay=self.retry_base_delay,
                          models=self.models, model_alias=alias, auto_compact_pct=self.options.auto_compact_pct,
                          guard=self.permissions.guard_for(workstream_id, saved.settings))
        if saved.compaction is not None:
            session.restore_compaction(*saved.compaction)
        session.system_extra = self.mcp.catalog
        checkpoint_wiring.attach(self, session)
        attach_memory(session, self.memory_service)
        configure_tools(session, self.options.config, saved.settings)
        return session

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """One place for worker outcomes: errors become a message, finished turns start queued ones."""
        worker = event.worker
        if event.state == WorkerState.ERROR:
            from app.runtime.error_log import internal_failure
            from app.storage.write_refused import WriteRefused

            if isinstance(worker.error, WriteRefused):  # a setting of a workstream another window took over
                self.notify(worker.error.not_saved, severity="warning", timeout=10)
            else:
                self.notify(internal_failure(worker_task(worker), worker.error), severity="error", timeout=10)
        self.turns.worker_changed(event)

    # -- actions (keys and the command palette) ------------------------------------------
    def booted(self) -> bool:
        """Workspace actions need the restored workspace; say so instead of ignoring a key."""
        if self.manager is None:
            self.notify("Still starting up: try again in a moment.", timeout=3)
        return self.manager is not None

    async def action_new_workstream(self) -> None:
        from app.tui.workstreams.agent_wiring import agent_names, pick_new_workstream

        if self.booted():
            if agent_names(self) or checkpoint_wiring.worktree_possible(self):
                pick_new_workstream(self)  # Whimbrel's own model or one of the [agents.*]; a worktree or not
            else:
                await self.workspace.new_workstream()

    def action_switch_tab(self, index: int) -> None:
        if self.booted():
            self.workspace.switch_to_index(index)

    def action_cycle_tab(self, step: int) -> None:
        if self.booted():
            self.workspace.cycle_tab(step)

    def action_next_attention(self) -> None:
        self.workspace.next_attention()

    def action_focus_next_pane(self) -> None:
        self.workspace.focus_next_pane()

    async def action_split(self, direction: str) -> None:
        if self.booted():
            await self.workspace.split(direction)

    async def action_close_pane(self) -> None:
        await self.workspace.close_pane()

    def action_resume_browser(self) -> None:
        from app.tui.screens.resume import ResumeScreen

        def opened(workstream_id: str | None) -> None:
            if workstream_id:
                self.run_worker(self.workspace.open_workstream(workstream_id), group="open", exit_on_error=False)

        self.push_screen(ResumeScreen(self.store), callback=opened)

    def action_pick_model(self) -> None:
        """The model picker: the chosen alias applies to the focused workstream."""
        from app.tui.screens.model_picker import ModelPickerScreen

        if self.models is None:
            self.open_setup()
            return
        workstream = self.workstream

        def chosen(alias: str | None) -> None:
            if alias and workstream is not None:
                self.run_worker(workstream.session.set_model(alias), group="model", exit_on_error=False)

        self.push_screen(ModelPickerScreen(self.models.describe(), current=workstream.session.model_alias),
                         callback=chosen)

    async def show_cost(self) -> None:
        """The /cost screen: every workstream's tokens and cost, tokens per turn of the focused one."""
        from app.engine.usage import tokens_per_turn
        from app.tui.screens.cost import CostScreen

        totals = await self.store.usage_totals()
        per_turn = tokens_per_turn(await self.store.list_usage(self.focused_id))
        await self.push_screen(CostScreen(totals, per_turn, current=self.focused_id))

    def open_setup(self) -> None:
        """First-run setup: pick a detected key or local server; it is written to config.toml."""
        from app.tui.screens.setup import SetupScreen

        def chosen(candidate) -> None:
            if candidate is not None:
                self.run_worker(self._adopt_config(), group="setup", exit_on_error=False)

        self.push_screen(SetupScreen(self.options.config_path), callback=chosen)

    async def _adopt_config(self) -> None:
        """Reload the config the setup screen wrote and give every open workstream its default model."""
        from app.settings.config import load_config
        from app.providers.models import ModelRegistry

        config = await asyncio.to_thread(load_config, self.options.config_path)
        models = ModelRegistry.from_config(config)
        if models.default is None:
            self.notify("The config has no default model yet.", severity="warning")
            return
        old, self.models = self.models, models
        for workstream in self.manager:
            workstream.session.models = models
            await workstream.session.set_model(models.default)
        if old is not None:
            await old.aclose()
        self.notify(f"Using {models.default}. Saved to {self.options.config_path}.")
        await self.sdk_warmup.warm()

    def action_help(self) -> None:
        from app.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen(self.configured_keymap))

    def get_system_commands(self, screen):
        """The command palette (Ctrl+P) offers every action."""
        from app.tui.commands.palette import whimbrel_commands

        yield from super().get_system_commands(screen)
        yield from whimbrel_commands(self)

    async def on_unmount(self) -> None:
        from app.tui.workstreams.agent_wiring import stop_agents

        try:
            await self.turns.end_all()
            await stop_agents(self)
            await self.ownership.release()
            await self.mcp.stop()
            if self.models is not None:
                await self.models.aclose()
            if self.store is not None:
                await self.store.aclose()
        finally:
            quit_signals.uninstall()
