"""The team store's PostgreSQL server stops (a real one, this test's own) while the window runs: the
banner says so, naming the store by its masked URL and counting down to the next try; a prompt sent
meanwhile is not sent and stays in the prompt box; once the server is back the banner clears, a notice
says so, and the same text, sent again, is answered and stored."""

from __future__ import annotations

import asyncio

from app.storage.location import URL_VARIABLE
from app.storage.store import Store
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, focused_view, make_app, screen_text, wait_for
from widgets.store_banner import StoreBanner

PASSWORD = "s3cret-pw"  # in the URL (the test server trusts every local user): it must never be shown


def _stored_prompts(url: str) -> list[str]:
    store = Store(url)
    try:
        with store.engine.connect() as conn:
            return [row[0] for row in conn.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    finally:
        store.close()


def _notified(app, words: str) -> bool:
    return any(words in str(n.message) for n in app._notifications)


async def test_a_lost_store_is_shown_retried_and_the_prompt_kept(tmp_path, own_pg_server, fake_openai,
                                                               monkeypatch) -> None:
    url = (await asyncio.to_thread(own_pg_server.database)).replace("whimbrel@", f"whimbrel:{PASSWORD}@", 1)
    monkeypatch.setenv(URL_VARIABLE, url)
    fake_openai.queue(TextReply("Answered once the store was back."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        listener = app.ownership.listener
        await wait_for(pilot, lambda: listener.listening.is_set(), message="the window listens")
        banner = app.main_screen.query_one(StoreBanner)
        assert not banner.display

        await asyncio.to_thread(own_pg_server.halt)
        await wait_for(pilot, lambda: banner.display and "retrying in" in screen_text(app), timeout=30,
                       message="the banner says the store is unreachable and when it is tried next")
        shown = screen_text(app)
        assert "Team store unreachable" in shown and "whimbrel:***@" in shown and PASSWORD not in shown, shown

        prompt = focused_view(app).prompt
        prompt.insert("Keep this prompt safe.")
        await pilot.press("enter")
        await wait_for(pilot, lambda: prompt.text == "Keep this prompt safe.", message="the prompt stays in the box")
        await wait_for(pilot, lambda: _notified(app, "Not sent: the team store does not answer"),
                       message="a notice says why it was not sent")
        assert fake_openai.requests == [], "nothing went to the model"

        await asyncio.to_thread(own_pg_server.resume)
        await wait_for(pilot, lambda: not banner.display, timeout=60, message="the banner clears once it answers")
        await wait_for(pilot, lambda: _notified(app, "The team store answers again"), message="and says so")
        assert app.store.link.outages == 1

        await pilot.press("enter")  # the kept text, sent now
        await wait_for(pilot, lambda: "Answered once the store was back." in screen_text(app), timeout=30,
                       message="the prompt answered")
        assert prompt.text == ""
    assert await asyncio.to_thread(_stored_prompts, url) == ["Keep this prompt safe."]


async def test_quitting_while_the_store_is_unreachable_exits_cleanly(tmp_path, own_pg_server, monkeypatch) -> None:
    """Ctrl+Q with the server gone: the leases cannot be given back (they go stale by themselves), and the
    window still closes normally, with status 0."""
    url = await asyncio.to_thread(own_pg_server.database)
    monkeypatch.setenv(URL_VARIABLE, url)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await wait_for(pilot, lambda: app.ownership.listener.listening.is_set(), message="the window listens")
        await asyncio.to_thread(own_pg_server.halt)
        await wait_for(pilot, lambda: not app.store.link.reachable, timeout=30, message="the outage noticed")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.return_code is not None, timeout=30, message="the window closes")
    assert app.return_code == 0
