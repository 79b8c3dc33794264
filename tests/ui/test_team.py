"""Pilot tests of /team: the app and another instance on one SQLite store (a second Store handle whose
lease names a live process, as another window's would); the list follows the other instance live and
Enter opens its workstream here, read-only."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from textual.widgets import DataTable

from app.storage import identity
from app.storage.leases import Owner
from app.storage.store import Store
from app.tui.screens.team import TeamScreen
from app.vocabulary.messages import Message
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import answer_approval, booted, make_app, screen_is, submit, wait_for


@pytest.fixture
def store(tmp_path: Path):
    shared = Store(tmp_path / "data" / "whimbrel.db")
    yield shared
    shared.close()
    identity.set_name(None)


def _cells(app) -> list[list[str]]:
    table = app.screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def test_team_lists_the_other_instance_live_and_enter_follows_it(tmp_path, store, other_window) -> None:
    ws = store.create_workstream(title="schema work")
    store.add_message(ws, Message(role="user", content="Sketch the lease table."))
    identity.set_name("bob")
    assert store.take_lease(ws, Owner("0" * 32, other_window.pid, Owner.this_process().host)) is None
    identity.set_name(None)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await submit(pilot, "/team")
        await wait_for(pilot, lambda: screen_is(app, TeamScreen), message="the team view opens")
        await wait_for(pilot, lambda: any(row[0] == "bob" for row in _cells(app)), message="bob is listed")
        bob = next(row for row in _cells(app) if row[0] == "bob")
        assert bob[2:5] == [str(other_window.pid), "schema work", "idle"]
        assert any(row[0].endswith("(this window)") for row in _cells(app)), "this app's own instance too"

        draft = Message(role="assistant", content="One row per open workstream")
        store.start_draft(ws, draft)  # the other instance starts streaming: the open list follows
        await wait_for(pilot, lambda: ["schema work", "streaming"] in [row[3:5] for row in _cells(app)],
                       message="the streaming state is shown without reopening")

        table = app.screen.query_one(DataTable)
        table.move_cursor(row=[row[3] for row in _cells(app)].index("schema work"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.workstream.id == ws, message="the workstream opens here")
        assert app.workstream.read_only and app.workstream.held_by.who == "bob"
        await wait_for(pilot, lambda: "One row per open workstream" in
                       "".join(m.content or "" for m in app.workstream.session.messages),
                       message="the streaming reply is followed")


async def test_a_turn_waiting_for_approval_is_shown_to_other_instances(fake_openai, tmp_path, store) -> None:
    fake_openai.queue(ToolCallReply([("write_file", json.dumps({"path": "a.txt", "content": "hi"}), "w1")]))
    fake_openai.queue(TextReply("Written."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await answer_approval(pilot, "write a.txt")
        ws = app.workstream.id

        async def seen_by_the_other_instance(state: str, message: str) -> None:
            """Wait until the other instance's store reads `state` (read off the app's loop)."""
            deadline = time.monotonic() + 15
            while await asyncio.to_thread(lambda: [w.state for i in store.live_instances()
                                                   for w in i.workstreams if w.id == ws]) != [state]:
                assert time.monotonic() < deadline, f"timed out waiting for: {message}"
                await pilot.pause(0.05)

        await seen_by_the_other_instance("approval", "the other instance sees the turn waiting for approval")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.workstream.turns == 1, message="the turn ends")
        await seen_by_the_other_instance("idle", "no longer waiting once answered")
