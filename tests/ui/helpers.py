"""Building a WhimbrelApp for Pilot and snapshot tests, and waiting on it."""

from __future__ import annotations

import asyncio
import unicodedata
from pathlib import Path
from typing import Any, Callable

from app.tui.app import AppOptions, WhimbrelApp
from app.providers.base import ModelSettings

FIXED_CONFIG_PATH = Path("/home/user/.config/whimbrel/config.toml")


def make_app(tmp_path: Path, base_url: str | None = "http://127.0.0.1:9/v1", *, resume: str | None = None,
             context_window: int | None = 32000, model: str = "fake-model", auto_title: bool = False,
             max_open: int = 20, settings: ModelSettings | None = None, models: Any = None,
             config: Any = None) -> WhimbrelApp:
    """An app whose workspace and data live under tmp_path; base_url None means no model configured.

    `settings` / `models` (a ModelRegistry) / `config` (a loaded Config) replace the simple default model.
    """
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    if settings is None and base_url is not None:
        settings = ModelSettings(model=model, base_url=base_url, api_key="x", context_window=context_window)
    options = AppOptions(settings=settings, workdir=workspace, data_dir=tmp_path / "data",
                         config_path=FIXED_CONFIG_PATH, resume=resume, auto_title=auto_title, max_open=max_open,
                         models=models, config=config)
    app = WhimbrelApp(options)
    app.retry_base_delay = 0.01
    app.animation_level = "none"  # no pulse or spinner frames: screens stay deterministic
    return app


async def booted(pilot) -> None:
    """Wait until the boot worker has restored the workspace."""
    await wait_for(pilot, lambda: pilot.app.ready.is_set(), message="boot")


def focused_view(app):
    """The focused workstream's view (its prompt and transcript)."""
    return app.main_screen.view_for(app.focused_id)


async def send(pilot, text: str) -> None:
    """Type `text` into the focused prompt and press Enter, as a user sends a prompt or a command."""
    focused_view(pilot.app).prompt.insert(text)
    await pilot.press("enter")


async def submit(pilot, text: str) -> None:
    """Once the app has booted, send `text` from the focused prompt."""
    await booted(pilot)
    await send(pilot, text)


async def answer_approval(pilot, text: str, *keys: str) -> None:
    """Send `text`, wait for the approval modal its tool call opens, and press `keys` there."""
    from app.tui.screens.approval import ApprovalScreen

    await submit(pilot, text)
    await wait_for(pilot, lambda: screen_is(pilot.app, ApprovalScreen), message="the approval modal")
    await pilot.press(*keys)


async def take_turn(pilot, text: str) -> None:
    """Send `text` and wait until the focused workstream has finished the turn it starts."""
    workstream = pilot.app.workstream
    before = workstream.turns
    await send(pilot, text)
    await wait_for(pilot, lambda: workstream.turns > before, message=f"the turn for {text!r}")


def burst(app, *keys: str) -> None:
    """Post key events as one burst, the way a busy terminal delivers them (pilot.press waits for
    an idle app, which a streaming app never is). Named keys get their character, as Textual's
    driver gives them ("inverted_exclamation_mark" is the "¡" that ESC 1 decodes to)."""
    from textual import events

    for key in keys:
        if len(key) == 1:
            character = key
        else:
            try:
                character = unicodedata.lookup(key.replace("_", " ").upper())
            except KeyError:
                character = None
        event = events.Key(key, character)
        event.set_sender(app)
        app._driver.send_message(event)


def paste(app, text: str) -> None:
    """A bracketed paste as the terminal driver delivers it (the app hands it to the focused widget)."""
    from textual import events

    event = events.Paste(text)
    event.set_sender(app)
    app._driver.send_message(event)


async def wait_for(pilot, predicate: Callable[[], object], timeout: float = 15.0, message: str = "") -> None:
    """Pause the pilot until `predicate()` is truthy; fail with `message` after `timeout` seconds."""
    from textual.pilot import WaitForScreenTimeout

    steps = int(timeout / 0.05)
    for _ in range(steps):
        if predicate():
            return
        try:
            await pilot.pause(0.05)
        except WaitForScreenTimeout:  # Pilot gives a busy screen 30 s to go idle; a loaded machine needs longer
            pass
    raise AssertionError(f"timed out waiting for: {message or predicate}")


async def wait_unforced(predicate: Callable[[], object], timeout: float = 60.0, message: str = "") -> None:
    """Wait until `predicate()` is truthy without a Pilot pause: each of those lays the screen out and
    paints it, which hides what the app would show by itself (a layout it never gets to)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for: {message or predicate}")
        await asyncio.sleep(0.05)


def nothing_to_paint(app) -> bool:
    """No layout, scroll, repaint or changed widget waits for the screen's next paint, and no batch
    update holds paints back."""
    screen = app.screen
    return not (screen._layout_required or screen._scroll_required or screen._repaint_required
                or screen._dirty_widgets or app._batch_count)


async def painted_by_itself(pilot, timeout: float = 60.0) -> None:
    """Wait until the app has handled every message queued to its screen and painted every change,
    all on its own (no paint forced as a Pilot pause does): what the user would see now."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        await pilot._wait_for_screen(timeout)  # every message queued so far handled (nothing painted)
        if nothing_to_paint(pilot.app):
            return
        if loop.time() > deadline:
            raise AssertionError("timed out waiting for the app to paint its changes")
        await asyncio.sleep(0.02)


def shown_lines(app, widget) -> list[str]:
    """The lines the screen renders where `widget`'s content is (its scrollbars left out)."""
    region = widget.scrollable_content_region
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    return [line[region.x:region.right] for line in lines[region.y:region.bottom]]


def screen_is(app, kind: type) -> bool:
    """The current screen is a `kind` and has mounted its widgets: a screen just pushed is current a
    moment before its children exist (reading its text or querying it then finds nothing)."""
    screen = app.screen
    return isinstance(screen, kind) and screen.is_mounted


async def wait_for_text(pilot, text: str, timeout: float = 15.0) -> None:
    """Pause the pilot until `text` is on the current screen (see screen_text)."""
    await wait_for(pilot, lambda: text in screen_text(pilot.app), timeout, message=f"{text!r} on screen")


def screen_text(app) -> str:
    """All text of the current screen's Markdown and Static widgets (what a user would read)."""
    from rich.console import Console
    from textual.widgets import Markdown, Static

    parts = []
    for widget in app.screen.query("*"):
        if isinstance(widget, Markdown):
            parts.append(widget.source)
        elif isinstance(widget, Static):
            content = widget.content
            if isinstance(content, str):
                parts.append(content)
            else:
                console = Console(width=200, record=True, file=open("/dev/null", "w"))
                console.print(content)
                parts.append(console.export_text())
    return "\n".join(parts)
