"""A read-only pane on PostgreSQL follows the owner's stream by LISTEN/NOTIFY: with the fallback poll
set to ten minutes, each save of another instance's streaming reply (a second Store handle whose lease
names a live process) still shows in the app, as it commits."""

from __future__ import annotations

import subprocess
import sys

import pytest

import app.engine.ownership as ownership
from app.storage.leases import Owner
from app.storage.location import URL_VARIABLE
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.ui.helpers import booted, make_app, screen_text, wait_for


@pytest.fixture
def other_window():
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield process
    process.kill()
    process.wait()


async def test_the_follower_shows_each_save_without_polling(tmp_path, pg_server, other_window, monkeypatch) -> None:
    url = pg_server.database()
    monkeypatch.setenv(URL_VARIABLE, url)
    monkeypatch.setattr(ownership, "READ_ONLY_POLL", 600.0)  # only a notification can refresh the pane
    owner = Store(url)
    try:
        ws = owner.create_workstream(title="streamed")
        owner.add_message(ws, Message(role="user", content="Write the plan."))
        assert owner.take_lease(ws, Owner("0" * 32, other_window.pid, Owner.this_process().host)) is None
        app = make_app(tmp_path, resume=ws[:8])
        async with app.run_test(size=(120, 34)) as pilot:
            await booted(pilot)
            assert app.workstream.id == ws and app.workstream.read_only
            listener = app.ownership.listener
            await wait_for(pilot, lambda: listener is not None and listener.listening.is_set(),
                           message="the app listens on PostgreSQL")
            draft = Message(role="assistant", content="Step one: the schema.", interrupted=True)
            owner.start_draft(ws, draft)
            await wait_for(pilot, lambda: "Step one: the schema." in screen_text(app), timeout=5,
                           message="the draft's first save is shown")
            for n in range(3):
                owner.append_draft(ws, draft.db_id, f" Step {n + 2}: part {n}.", "")
                await wait_for(pilot, lambda: f"Step {n + 2}: part {n}." in screen_text(app), timeout=5,
                               message=f"save {n + 2} is shown")
    finally:
        owner.close()
