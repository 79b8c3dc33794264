"""Pilot tests: a workstream open in another window is read-only here, refreshed, and taken over once
that window has gone; restoring never takes tabs another window holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from app.storage import identity
from app.storage.identity import who
from app.storage.leases import Owner
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, screen_text, wait_for
from widgets.held_banner import HeldBanner
from widgets.tab_bar import TabBar


@pytest.fixture
def store(tmp_path: Path):
    """The store the app under test opens, as the other window (or the test) sees it."""
    shared = Store(tmp_path / "data" / "whimbrel.db")
    yield shared
    shared.close()


def _conversation(store: Store, title: str) -> str:
    ws = store.create_workstream(title=title)
    store.add_message(ws, Message(role="user", content="What is the plan?"))
    store.add_message(ws, Message(role="assistant", content="First the schema, then the store."))
    return ws


def _owner_of(process) -> Owner:
    return Owner("0" * 32, process.pid, Owner.this_process().host)


def _held(store: Store, title: str, process) -> str:
    """A stored conversation that `process` (another window) has open."""
    ws = _conversation(store, title)
    assert store.take_lease(ws, _owner_of(process)) is None
    return ws


async def test_workstream_open_elsewhere_is_read_only_refreshed_then_taken_over(fake_openai, tmp_path, store,
                                                                                other_window) -> None:
    ws = _held(store, "planning", other_window)
    fake_openai.queue(TextReply("Taken over and answering here."))
    app = make_app(tmp_path, fake_openai.base_url, resume=ws[:8])
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        workstream = app.workstream
        view = app.main_screen.view_for(ws)
        assert workstream.id == ws and workstream.read_only
        banner = view.query_one(HeldBanner)
        await wait_for(pilot, lambda: "First the schema" in screen_text(app), message="history shown")
        assert banner.display and view.prompt.disabled and banner.button.disabled
        assert f"open in another window (pid {other_window.pid})" in screen_text(app)

        # The other window writes: the read-only pane shows it.
        store.add_message(ws, Message(role="assistant", content="Written by the other window."))
        await wait_for(pilot, lambda: "Written by the other window." in screen_text(app),
                       message="the other window's new message appears")

        # A prompt sent anyway (typed before boot, say) runs nothing while the other window holds it.
        app.turns.submit(workstream, "sneaky")
        assert fake_openai.requests == []

        other_window.kill()
        other_window.wait()
        await wait_for(pilot, lambda: not banner.button.disabled, message="take-over offered")
        assert "has closed or stopped responding" in screen_text(app)
        await pilot.click(f"#{banner.button.id}")
        await wait_for(pilot, lambda: app.workstream is not None and not app.workstream.read_only,
                       message="taken over")
        mine = app.workstream
        assert mine.id == ws and store.lease(ws).owner == app.manager.ownership.owner
        new_view = app.main_screen.view_for(ws)
        assert not new_view.query_one(HeldBanner).display and not new_view.prompt.disabled
        await wait_for(pilot, lambda: "Written by the other window." in screen_text(app),
                       message="history after take-over")
        new_view.prompt.insert("carry on")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Taken over and answering here." in screen_text(app) and not mine.busy,
                       message="a turn runs after take-over")
    assert store.lease(ws) is None, "quitting gives the lease back"
    contents = [m.content for m in store.load_messages(ws)]
    assert contents[-3:] == ["Written by the other window.", "carry on", "Taken over and answering here."]


async def test_resume_browser_opens_it_read_only_and_enter_takes_over(tmp_path, store, other_window) -> None:
    ws = _held(store, "from the browser", other_window)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        app.main_screen.view_for(app.focused_id).prompt.insert("/resume")
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ResumeScreen", message="resume browser")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, message="the saved workstream listed")
        # who holds it: the lease's name, here this test process's own (user@host)
        assert table.get_row_at(0)[0].plain == f"from the browser  · open in another window by {who()}"
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.workstream.id == ws, message="opened and focused")
        view = app.main_screen.view_for(ws)
        assert app.workstream.read_only and view.prompt.disabled
        await wait_for(pilot, lambda: app.focused in view.query("*"), message="the keyboard is in this pane")
        other_window.kill()
        other_window.wait()
        button = view.query_one(HeldBanner).button
        await wait_for(pilot, lambda: app.focused is button, message="take-over button focused once offered")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.workstream.read_only, message="taken over with Enter")
        assert app.workstream.id == ws and app.focused is app.main_screen.view_for(ws).prompt


def _notified(app, words: str) -> bool:
    return any(words in str(n.message) for n in app._notifications)


async def test_take_over_is_refused_while_the_other_window_lives(tmp_path, store, other_window) -> None:
    ws = _held(store, "busy elsewhere", other_window)
    app = make_app(tmp_path, resume=ws)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        view = app.main_screen.view_for(ws)
        view.post_message(view.TakeOver(view))  # as if the button were pressed early
        await wait_for(pilot, lambda: _notified(app, "Cannot take over yet"), message="refusal shown")
        assert app.workstream.read_only and store.lease(ws).owner.pid == other_window.pid


async def test_a_workstream_open_in_another_window_is_not_deleted(tmp_path, store, other_window) -> None:
    ws = _held(store, "keep me", other_window)
    app = make_app(tmp_path, resume=ws)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await app.workspace.forget_workstream(ws)  # what /delete and Delete in the resume browser call
        await wait_for(pilot, lambda: _notified(app, "Not deleted"), message="the refusal is shown")
        assert store.get_workstream(ws) is not None and app.manager.get(ws) is not None


async def test_restore_skips_tabs_open_in_another_window(tmp_path, store, other_window) -> None:
    held, free = _held(store, "held one", other_window), _conversation(store, "free one")
    store.set_app_state("tabs", [held, free])
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        assert [w.id for w in app.manager] == [free]
        assert store.lease(free).owner == app.manager.ownership.owner
    store.set_app_state("tabs", [held])
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        (only,) = list(app.manager)
        assert only.id not in (held, free) and not only.read_only, "a fresh workstream of its own"
    assert store.lease(held).owner.pid == other_window.pid, "the other window keeps its lease"


def _stored(store: Store, ws: str) -> list[tuple[str, str, bool]]:
    return [(m.role, m.content, m.interrupted) for m in store.load_messages(ws)]


async def test_a_window_whose_workstream_was_taken_over_writes_nothing_more_and_turns_read_only(
        fake_openai, tmp_path, store, other_window) -> None:
    """This window looked stale (suspended, say) and another took its streaming workstream over: its
    next save is refused inside the write transaction, the turn stops and the pane turns read-only at
    once, not at the next heartbeat (until then it went on writing into the other window's workstream)."""
    fake_openai.queue(TextReply("streaming on and on. " * 400, chunk_size=4, delay=0.01))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        workstream = app.workstream
        view = app.main_screen.view_for(workstream.id)
        view.prompt.insert("talk")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(_stored(store, workstream.id)) == 2, message="the reply is being saved")
        assert store.take_lease(workstream.id, _owner_of(other_window), stale_after=-1) is None
        taken = _stored(store, workstream.id)
        await wait_for(pilot, lambda: "taken over by another window" in screen_text(app), message="told why it stopped")
        await wait_for(pilot, lambda: workstream.read_only and view.query_one(HeldBanner).display
                       and view.prompt.disabled and not workstream.busy, message="read-only now")
        assert f"open in another window (pid {other_window.pid})" in screen_text(app)
        store.add_message(workstream.id, Message(role="user", content="the new owner writes"))
        await wait_for(pilot, lambda: "the new owner writes" in screen_text(app), message="the pane follows it")
    assert _stored(store, workstream.id) == taken + [("user", "the new owner writes", False)]
    assert store.lease(workstream.id).owner.pid == other_window.pid


async def test_a_setting_changed_after_a_take_over_is_not_saved_and_the_user_is_told(tmp_path, store,
                                                                                      other_window) -> None:
    """This window looked stale and another took its workstream over and set its own mode: a setting
    changed here (/tools mode, the mode key) never overwrites the other window's; the user is told."""
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        workstream = app.workstream
        view = app.main_screen.view_for(workstream.id)
        assert store.take_lease(workstream.id, _owner_of(other_window), stale_after=-1) is None
        store.set_config(workstream.id, "policy_mode", "plan")  # the other window's choice
        view.prompt.insert("/tools mode code")
        await pilot.press("enter")
        await wait_for(pilot, lambda: _notified(app, "Not saved: this workstream was taken over by another window"),
                       message="the refusal is shown")
        await wait_for(pilot, lambda: workstream.read_only and view.prompt.disabled, message="read-only now")
        await pilot.press("shift+tab")  # the mode key, on the read-only pane
        await wait_for(pilot, lambda: _notified(app, "open in another window: take it over first"),
                       message="the mode key says why it does nothing")
        assert workstream.session.guard.gate.mode == "ask"
    assert store.get_config(workstream.id) == {"policy_mode": "plan"}
    assert store.lease(workstream.id).owner.pid == other_window.pid


async def test_the_heartbeat_keeps_this_windows_lease_fresh_and_notices_a_take_over(tmp_path, store,
                                                                                     other_window) -> None:
    """The heartbeat (one worker for the app's life) refreshes the lease while the app idles; once
    another window has taken the workstream over (this one looked stale), the next beat turns the idle
    pane read-only, without any write from this window."""
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        workstream = app.workstream
        view = app.main_screen.view_for(workstream.id)
        app.manager.ownership.interval = 0.2  # from the next beat on
        first = store.lease(workstream.id).heartbeat_at
        await wait_for(pilot, lambda: store.lease(workstream.id).heartbeat_at > first, timeout=30,
                       message="a beat refreshed the lease")
        assert store.take_lease(workstream.id, _owner_of(other_window), stale_after=-1) is None
        await wait_for(pilot, lambda: workstream.read_only and view.query_one(HeldBanner).display
                       and view.prompt.disabled, timeout=30, message="read-only after the next beat")
        assert f"open in another window (pid {other_window.pid})" in screen_text(app)
    assert store.lease(workstream.id).owner.pid == other_window.pid


async def test_the_tab_names_who_holds_a_workstream_until_it_is_taken_over(fake_openai, tmp_path, store,
                                                                           other_window) -> None:
    ws = _conversation(store, "planning")
    identity.set_name("bob@build\x1b[2J")  # the holder's `[team] name`, as its lease row records it
    try:
        assert store.take_lease(ws, _owner_of(other_window)) is None
    finally:
        identity.set_name(None)
    app = make_app(tmp_path, fake_openai.base_url, resume=ws[:8])
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        tabs = app.main_screen.query_one(TabBar)
        await wait_for(pilot, lambda: "planning ⇄ bob@build␛[2J" in tabs.render().plain, message="the owner named")
        assert "\x1b" not in tabs.render().plain

        other_window.kill()
        other_window.wait()
        banner = app.main_screen.view_for(ws).query_one(HeldBanner)
        await wait_for(pilot, lambda: not banner.button.disabled, message="take-over offered")
        assert "⇄ bob@build" in tabs.render().plain, "still held until taken over"
        await pilot.click(f"#{banner.button.id}")
        await wait_for(pilot, lambda: app.workstream is not None and not app.workstream.read_only, message="taken over")
        await wait_for(pilot, lambda: "⇄" not in tabs.render().plain, message="the tab is this window's own again")
        assert "planning" in tabs.render().plain
