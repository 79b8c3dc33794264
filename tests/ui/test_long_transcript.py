"""A 5,000-message workstream opens with a bounded number of widgets and pages back on scroll.

The window's sizes are made smaller here (pages of 20 messages, at most 80 widgets, against 60 and 300 in
the app): every mount lays out the whole transcript, so at the app's sizes these tests spent minutes laying
out hundreds of widgets, while the paging and trimming they prove work alike at any size. The 5,000
messages stay: opening them must still cost one page."""

from __future__ import annotations

import pytest

import widgets.transcript
from app.storage.store import Store
from tests.storage.factories import make_workstream
from tests.ui.helpers import make_app, wait_for
from widgets.transcript import PageMarker

PAGE, MAX_WIDGETS = 20, 80  # messages per page, widgets kept (the app's: 60 and 300)


@pytest.fixture(autouse=True)
def small_window(monkeypatch):
    monkeypatch.setattr(widgets.transcript, "PAGE", PAGE)
    monkeypatch.setattr(widgets.transcript, "MAX_WIDGETS", MAX_WIDGETS)


def big_workstream(tmp_path, count: int = 5000) -> None:
    store = Store(tmp_path / "data" / "whimbrel.db")
    make_workstream(store, count, alias="big")
    store.close()


# ten pages of layout and a turn whose request carries 5,000 messages: 45 s with both cores busy
@pytest.mark.loop_held_known("the openai SDK transforms a request of 5,000 messages on the loop: 2.2 s")
@pytest.mark.timeout(900)
async def test_opens_with_a_window_and_pages_back(fake_openai, tmp_path):
    big_workstream(tmp_path)
    app = make_app(tmp_path, fake_openai.base_url, resume="big")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), timeout=30)
        view = app.main_screen.view_for(app.focused_id)
        transcript = view.transcript
        await wait_for(pilot, lambda: transcript.query(PageMarker), message="history rendered")
        assert len(view.workstream.session.messages) == 5000
        assert transcript.first == 5000 - PAGE and transcript.last == 5000
        assert len(transcript.children) <= 3 * PAGE  # a page of messages, not 5,000 widgets
        marker = transcript.query_one(PageMarker)
        assert f"{5000 - PAGE:,} earlier messages" in str(marker.content)

        transcript.scroll_home(animate=False)  # scrolling to the top loads the previous page
        await wait_for(pilot, lambda: transcript.first == 5000 - 2 * PAGE, message="previous page loaded")
        for page in range(3, 11):  # keep paging back: the widget count stays bounded
            await wait_for(pilot, lambda: not transcript._loading)
            await transcript.load_earlier()
            assert transcript.first == 5000 - page * PAGE
        assert len(transcript.children) <= MAX_WIDGETS + 3 * PAGE
        assert not transcript.at_end

        view.prompt.insert("still responsive")  # typing and sending jumps back to the present
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.workstream.turns == 1, timeout=120, message="the turn ran")
        assert transcript.at_end and transcript.last >= 5000


async def test_live_output_trims_the_oldest_widgets(fake_openai, tmp_path):
    big_workstream(tmp_path, 50)
    app = make_app(tmp_path, fake_openai.base_url, resume="big")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        transcript = app.main_screen.view_for(app.focused_id).transcript
        for n in range(MAX_WIDGETS + 40):
            await transcript.add_notice(f"note {n}")
        assert len([w for w in transcript.children if not isinstance(w, PageMarker)]) <= MAX_WIDGETS
        assert len(transcript.query("Notice")) <= MAX_WIDGETS  # notices are not history: simply dropped


@pytest.mark.timeout(600)
async def test_paging_far_back_while_a_reply_streams_keeps_the_reply(fake_openai, tmp_path):
    """Paging back while a turn streams never trims the live reply away (it once did: the reply went on
    writing into a widget no longer on screen, and the app crashed with NoMatches)."""
    from tests.fake_llm.script import SlowReply
    from widgets.messages import AssistantMessage

    big_workstream(tmp_path, count=1000)
    app = make_app(tmp_path, fake_openai.base_url, resume="big")
    words = "streaming " * 5000  # ~140 s at this pace: still streaming when the paging is done
    fake_openai.queue(SlowReply(words, delay=0.02, chunk_size=6))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), timeout=30)
        view = app.main_screen.view_for(app.focused_id)
        transcript = view.transcript
        await wait_for(pilot, lambda: transcript.query(PageMarker), message="history rendered")
        view.prompt.insert("go on")
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.workstream.busy and transcript.query(AssistantMessage)
                       and transcript.query(AssistantMessage).last().shown_text, message="the reply streams")
        live = transcript.query(AssistantMessage).last()
        for _ in range(8):  # far enough back that an idle transcript would trim its newest widgets
            await wait_for(pilot, lambda: not transcript._loading)
            await transcript.load_earlier()
        assert view.workstream.busy, "the reply ended before the paging did: the test proves nothing"
        assert live.is_attached, "the live reply was trimmed off the transcript"
        await pilot.press("escape")  # cancel the turn: what streamed is kept
        await wait_for(pilot, lambda: view.workstream.turns == 1, timeout=120, message="the turn ended")
        assert live.is_attached, "the live reply was trimmed off the transcript"
        assert live.shown_text and words.startswith(live.shown_text.strip())
        stored = view.workstream.session.messages[-1]
        assert stored.role == "assistant" and stored.content == live.shown_text
