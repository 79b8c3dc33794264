"""Snapshots of a workstream open in another window: its read-only pane (held, then free to take
over), its row in the resume browser, and its tab naming who holds it (a hostile name made inert)."""

from __future__ import annotations

import time

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input

from app.tui.screens.resume import ResumeScreen
from app.storage.async_store import AsyncStore
from app.storage import identity
from app.storage.leases import Lease, Owner
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.ui.helpers import booted, make_app, wait_for
from widgets.held_banner import HeldBanner
from widgets.prompt import PromptInput
from widgets.tab_bar import TabBar, TabInfo, owner_label

SIZE = (110, 24)
BASE = time.time() + 3600  # every stored time; the lease's heartbeat stays fresh through the test
ELSEWHERE = Owner("f" * 32, 4242, "other-host.example")  # a fixed pid and host: the banner names them


def _held_workstream(tmp_path) -> str:
    """A stored conversation whose lease another window holds, beating an hour ahead (never stale here),
    next to one nobody has open."""
    store = Store(tmp_path / "data" / "whimbrel.db", clock=lambda: BASE)
    try:
        free = store.create_workstream(title="release notes", model="fake-model")
        store.add_message(free, Message(role="user", content="Draft the notes."))
        ws = store.create_workstream(title="schema work", model="fake-model")
        store.add_message(ws, Message(role="user", content="Sketch the lease table."))
        store.add_message(ws, Message(role="assistant", content="One row per open workstream: "
                                      "instance id, pid, host and a heartbeat."))
        identity.set_name("bob")  # a fixed name: the lease records who holds it, the pane and browser say so
        store.take_lease(ws, ELSEWHERE)
    finally:
        identity.set_name(None)
        store.close()
    return ws


async def _steady(pilot) -> None:
    await booted(pilot)
    for prompt in pilot.app.query(PromptInput):
        prompt.cursor_blink = False
    await pilot.pause(0.3)


def test_read_only_pane_open_in_another_window(snap_compare, tmp_path):
    ws = _held_workstream(tmp_path)

    async def run_before(pilot) -> None:
        await _steady(pilot)
        assert pilot.app.workstream.read_only

    assert snap_compare(make_app(tmp_path, resume=ws), terminal_size=SIZE, run_before=run_before)


def test_read_only_pane_ready_to_take_over(snap_compare, tmp_path):
    ws = _held_workstream(tmp_path)

    async def run_before(pilot) -> None:
        await _steady(pilot)
        stale = Store(tmp_path / "data" / "whimbrel.db", clock=lambda: 0.0)  # its last heartbeat: long ago
        try:
            stale.refresh_leases(ELSEWHERE, [ws])
        finally:
            stale.close()
        banner = pilot.app.main_screen.view_for(ws).query_one(HeldBanner)
        await wait_for(pilot, lambda: not banner.button.disabled, message="take-over offered")
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path, resume=ws), terminal_size=SIZE, run_before=run_before)


def test_resume_browser_marks_a_workstream_open_in_another_window(snap_compare, tmp_path):
    _held_workstream(tmp_path)

    async def run_before(pilot) -> None:
        await _steady(pilot)
        store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
        screen = ResumeScreen(store, now=lambda: BASE + 7200)
        pilot.app.push_screen(screen)
        await wait_for(pilot, lambda: screen.query(DataTable) and screen.query_one(DataTable).row_count == 2,
                       message="both listed")
        screen.query_one(Input).cursor_blink = False
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


class OwnedTabs(App):
    """Tabs held by other instances: a plain name, one with no name (its host shown), and a teammate's
    `[team] name` that is long and carries control and bidi characters (cut, and shown inert)."""

    CSS = "TabBar { margin: 1 0; background: $panel; }"

    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        def held(who):
            return owner_label(Lease("w", ELSEWHERE, BASE, who))
        bar = TabBar()
        bar.tabs = [TabInfo("mine", "idle"), TabInfo("schema work", "running", owner=held("bob@build")),
                    TabInfo("no name kept", "idle", owner=held(None)),
                    TabInfo("hostile", "idle", owner=held("mal\x1b[2J\u202elory\nof a very long team name"))]
        yield bar


def test_tabs_name_who_holds_them(snap_compare):
    assert snap_compare(OwnedTabs(), terminal_size=(110, 3))
