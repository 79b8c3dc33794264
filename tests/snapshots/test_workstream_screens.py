"""Snapshots of the parallel-workstream UI: tab bar states, split layouts, resume browser, palette, /help."""

from __future__ import annotations

import time

from textual.app import App, ComposeResult
from textual.widgets import Input

from app.tui.screens.help import HelpScreen
from app.tui.screens.resume import ResumeScreen
from app.storage.async_store import AsyncStore
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.ui.helpers import make_app, wait_for
from widgets.prompt import PromptInput
from widgets.tab_bar import TabBar, TabInfo

SIZE = (120, 34)


class TabBarStates(App):
    """Every tab state side by side, with fixed data (no clock, no animation)."""

    CSS = "TabBar { margin: 1 0; background: $panel; }"

    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"  # the busy-tab spinner stays on its first frame

    def compose(self) -> ComposeResult:
        for active, tabs in enumerate([
            [TabInfo("idle one", "idle"), TabInfo("thinking", "thinking"), TabInfo("running tests", "running")],
            [TabInfo("needs approval", "attention", pending=2), TabInfo("broke", "error"),
             TabInfo("has news", "idle", unread=True)],
        ]):
            bar = TabBar()
            bar.tabs, bar.active = tabs, active
            yield bar


def test_tab_bar_states(snap_compare):
    assert snap_compare(TabBarStates(), terminal_size=(110, 6))


async def steady(pilot) -> None:
    await wait_for(pilot, lambda: pilot.app.ready.is_set(), message="boot")
    for prompt in pilot.app.query(PromptInput):
        prompt.cursor_blink = False
    await pilot.pause(0.2)


async def split_into(pilot, count: int) -> None:
    await steady(pilot)
    app = pilot.app
    for key in ["f3", "f4", "f2", "f4"]:
        if len(app.layout_tree.leaves()) == count:
            break
        panes = len(app.layout_tree.leaves())
        await pilot.press(key)
        if key != "f2":
            await wait_for(pilot, lambda: len(app.layout_tree.leaves()) == panes + 1, message=f"{key} split")
    for number, workstream in enumerate(app.manager, start=1):
        workstream.title = f"task {number}"
    app.workspace.refresh_chrome()
    for prompt in app.query(PromptInput):
        prompt.cursor_blink = False
    await pilot.pause(0.3)


def test_two_pane_layout(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await split_into(pilot, 2)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_four_pane_layout(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await split_into(pilot, 4)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def seeded_store(tmp_path) -> float:
    """Three saved workstreams a few minutes apart; returns the base time for a fixed 'now'.

    Recent real times keep them clear of startup pruning; ages are rendered against base + 2 h.
    """
    base = float(int(time.time()) - 600)
    clock = iter(range(int(base), int(base) + 100_000, 60))
    store = Store(tmp_path / "data" / "whimbrel.db", clock=lambda: float(next(clock)))
    for title, alias, texts in [
        ("Fix flaky login test", None, ["the login test fails on CI", "It was a race in the fixture."]),
        ("Port parser to Rust", "rust-port", ["port the tokenizer", "Done: tokenizer.rs compiles."]),
        ("Write release notes", None, ["draft notes for 2.0", "Here is a draft mentioning the login fix."]),
    ]:
        workstream_id = store.create_workstream(title=title, model="fake-model", workdir="/w")
        if alias:
            store.update_workstream(workstream_id, alias=alias)
        store.add_message(workstream_id, Message(role="user", content=texts[0]))
        store.add_message(workstream_id, Message(role="assistant", content=texts[1]))
    store.close()
    return base


def test_resume_browser_with_search_results(snap_compare, tmp_path):
    base = seeded_store(tmp_path)

    async def run_before(pilot) -> None:
        await steady(pilot)
        store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
        pilot.app.push_screen(ResumeScreen(store, "login", now=lambda: base + 7200))
        await pilot.pause(0.5)
        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.pause(0.1)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_resume_browser_listing(snap_compare, tmp_path):
    base = seeded_store(tmp_path)

    async def run_before(pilot) -> None:
        await steady(pilot)
        store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
        pilot.app.push_screen(ResumeScreen(store, now=lambda: base + 7200))
        await pilot.pause(0.5)
        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.pause(0.1)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_command_palette(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await steady(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.press(*"pane")
        await pilot.pause(0.6)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_help_screen(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await steady(pilot)
        pilot.app.push_screen(HelpScreen())
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=(120, 40), run_before=run_before)
