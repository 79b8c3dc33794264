"""The chrome of the first frame, before boot: the status bar from the config, the saved tabs' names.

Boot imports the engine and opens the store on a thread after the first frame (most of a second on
a small machine). Until the restored workspace replaces them, the status bar shows what the CLI has
already parsed (model, permission mode, context window; the sandbox as far as the PATH tells) and
the tab bar the tabs that boot is restoring, read with the standard library's sqlite3.
"""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass

from app.storage.peek import SavedTabs, saved_tabs
from app.vocabulary.inert import inert
from widgets.status_bar import StatusBar
from widgets.tab_bar import TabBar, TabInfo


@dataclass
class _Gate:
    sandboxed: bool
    network: bool = False  # /network is per workstream, off until boot restores it


@dataclass
class _Guard:
    mode: str
    gate: _Gate


@dataclass
class _Session:
    guard: _Guard


@dataclass
class FirstFrameStatus:
    """What the status bar reads from a workstream, as far as it is known before boot."""

    model: str
    context_window: int | None
    session: _Session
    state: str = "idle"
    tokens: int = 0
    cost: float | None = None
    cost_estimated: bool = False

    def breaker_view(self) -> None:
        return None  # no request has been made yet


def first_frame_status(options, saved: SavedTabs | None = None) -> FirstFrameStatus | None:
    """The status bar's facts from `options` (app.tui.app.AppOptions) and the focused saved tab's own
    model and mode; None when no model is configured (the setup message says so)."""
    from app.providers.capabilities import context_window

    models = options.models
    if options.settings is None:
        return None
    settings = options.settings
    if saved is not None and saved.model_alias and models is not None and saved.model_alias in models:
        settings = models.settings(saved.model_alias)
    config = options.config
    mode = "bypass" if options.bypass else (saved.mode if saved is not None and saved.mode else
                                           getattr(config, "policy_mode", "ask"))
    sandboxed = getattr(config, "policy_sandbox", "workspace-write") != "full" and shutil.which("bwrap") is not None
    return FirstFrameStatus(settings.model, settings.context_window or context_window(settings),
                            _Session(_Guard(mode, _Gate(sandboxed))))


def show_first_frame(app) -> None:
    """Fill the main screen's status bar now and its tab bar once the saved tabs are read
    (`app.first_frame_part_shown("tabs")` once they are painted, or there are none). The CLI began
    reading them before Textual was imported (`options.saved_tabs`): usually they are in already,
    and this very frame shows them."""
    status = first_frame_status(app.options)
    if status is not None:
        app.main_screen.query_one(StatusBar).show(status)
    early = app.options.saved_tabs
    if early is not None and early.done() and early.exception() is None:
        _show_saved(app, early.result())
        app.call_after_refresh(app.first_frame_part_shown, "tabs")
    else:
        app.run_worker(_show_saved_tabs(app, early), group="first-frame", exit_on_error=False)


async def _show_saved_tabs(app, early) -> None:
    """Show the saved tabs once read, then tell the app they are on screen (boot waits for that)."""
    try:
        if early is not None:
            saved = await asyncio.wrap_future(early)
        else:
            saved = await asyncio.to_thread(saved_tabs, app.options.data_dir / "whimbrel.db")
        _show_saved(app, saved)
    finally:
        app.call_after_refresh(app.first_frame_part_shown, "tabs")


def _show_saved(app, saved: SavedTabs | None) -> None:
    if saved is None or app.manager is not None:
        return  # nothing saved, or boot has shown the real workspace already
    screen = app.main_screen
    screen.query_one(TabBar).show([TabInfo(inert(name, multiline=False), "idle") for name in saved.names], saved.focused)
    status = first_frame_status(app.options, saved)
    if status is not None:
        screen.query_one(StatusBar).show(status)
