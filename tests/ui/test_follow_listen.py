"""A read-only pane on PostgreSQL follows the owner's stream by LISTEN/NOTIFY: with the fallback poll
set to ten minutes, each save of another instance's streaming reply (a second Store handle whose lease
names a live process) still shows in the app, as it commits; so does its new state in the team view
(/team), whose own refresh is set to ten minutes."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from textual.widgets import DataTable

import app.engine.ownership as ownership
import app.tui.screens.team as team
from app.storage.leases import Owner
from app.storage.location import URL_VARIABLE
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.ui.helpers import booted, make_app, screen_text, submit, wait_for


def _owner_holding_a_workstream(url: str, pid: int) -> tuple[Store, str]:
    owner = Store(url)
    ws = owner.create_workstream(title="streamed")
    owner.add_message(ws, Message(role="user", content="Write the plan."))
    assert owner.take_lease(ws, Owner("0" * 32, pid, Owner.this_process().host)) is None
    return owner, ws


@asynccontextmanager
async def _listening_app(tmp_path, pg_server, other_window, monkeypatch, *, resume: bool):
    """The app on a fresh PostgreSQL database, listening, beside another instance's store (opened and
    written off the app's loop, as another process would) holding workstream `ws`: (pilot, owner, ws)."""
    url = await asyncio.to_thread(pg_server.database)
    monkeypatch.setenv(URL_VARIABLE, url)
    owner, ws = await asyncio.to_thread(_owner_holding_a_workstream, url, other_window.pid)
    try:
        app = make_app(tmp_path, resume=ws[:8] if resume else None)
        async with app.run_test(size=(120, 34)) as pilot:
            await booted(pilot)
            listener = app.ownership.listener
            await wait_for(pilot, lambda: listener is not None and listener.listening.is_set(),
                           message="the app listens on PostgreSQL")
            yield pilot, owner, ws
    finally:
        await asyncio.to_thread(owner.close)


async def test_the_follower_shows_each_save_without_polling(tmp_path, pg_server, other_window, monkeypatch) -> None:
    monkeypatch.setattr(ownership, "READ_ONLY_POLL", 600.0)  # only a notification can refresh the pane
    async with _listening_app(tmp_path, pg_server, other_window, monkeypatch, resume=True) as (pilot, owner, ws):
        app = pilot.app
        assert app.workstream.id == ws and app.workstream.read_only
        draft = Message(role="assistant", content="Step one: the schema.", interrupted=True)
        await asyncio.to_thread(owner.start_draft, ws, draft)
        await wait_for(pilot, lambda: "Step one: the schema." in screen_text(app), timeout=10,
                       message="the draft's first save is shown")
        for n in range(3):
            await asyncio.to_thread(owner.append_draft, ws, draft.db_id, f" Step {n + 2}: part {n}.", "")
            await wait_for(pilot, lambda: f"Step {n + 2}: part {n}." in screen_text(app), timeout=10,
                           message=f"save {n + 2} is shown")


def _rows(app) -> list[list[str]]:
    """The team view's (workstream, state) cells."""
    table = app.screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(n)][3:5] for n in range(table.row_count)]


async def test_the_team_view_follows_writes_without_polling(tmp_path, pg_server, other_window, monkeypatch) -> None:
    monkeypatch.setattr(team, "REFRESH", 600.0)  # only a notification can refresh the list
    async with _listening_app(tmp_path, pg_server, other_window, monkeypatch, resume=False) as (pilot, owner, ws):
        app = pilot.app
        await submit(pilot, "/team")
        await wait_for(pilot, lambda: isinstance(app.screen, team.TeamScreen) and ["streamed", "idle"] in _rows(app),
                       message="the other instance's workstream is listed")
        draft = Message(role="assistant", content="Step one.", interrupted=True)
        await asyncio.to_thread(owner.start_draft, ws, draft)
        await wait_for(pilot, lambda: ["streamed", "streaming"] in _rows(app), timeout=10,
                       message="its new state is shown at once")


async def test_the_follower_keeps_following_after_the_server_restarts(tmp_path, own_pg_server, other_window,
                                                                      monkeypatch) -> None:
    """The server restarts (every connection cut, the listener's too): the window says the store went,
    clears that once it is back, and its read-only pane still shows the owner's next save with no poll."""
    from widgets.store_banner import StoreBanner

    monkeypatch.setattr(ownership, "READ_ONLY_POLL", 600.0)  # only a notification can refresh the pane
    async with _listening_app(tmp_path, own_pg_server, other_window, monkeypatch, resume=True) as (pilot, owner, ws):
        app = pilot.app
        assert app.workstream.id == ws and app.workstream.read_only
        await asyncio.to_thread(own_pg_server.restart)
        await wait_for(pilot, lambda: app.store.link.outages >= 1, timeout=30,
                       message="the window noticed the server went")
        banner = app.main_screen.query_one(StoreBanner)
        await wait_for(pilot, lambda: app.store.link.reachable and not banner.display
                       and app.ownership.listener.listening.is_set(), timeout=60,
                       message="back, listening again, the banner cleared")
        await asyncio.to_thread(owner.add_message, ws, Message(role="assistant", content="Written after the restart."))
        await wait_for(pilot, lambda: "Written after the restart." in screen_text(app), timeout=10,
                       message="the save after the restart is shown")
