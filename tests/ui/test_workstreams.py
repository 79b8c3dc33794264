"""Pilot tests for parallel workstreams: tabs, background approvals, eviction, layout persistence."""

from __future__ import annotations

import json

from app.tui.screens.approval import ApprovalScreen
from tests.fake_llm.script import SlowReply, TextReply, ToolCallReply
from tests.ui.helpers import booted, make_app, screen_is, screen_text, send, wait_for
from widgets.pane_area import PaneArea
from widgets.tab_bar import TabBar


def view_text(app, workstream) -> str:
    view = app.main_screen.view_for(workstream.id)
    return "\n".join(getattr(w, "source", "") for w in view.transcript.query("Markdown"))


async def two_workstreams(pilot, first_prompt: str, second_prompt: str):
    """Send `first_prompt`, open a second workstream (Ctrl+N) and send `second_prompt` there; (first, second)."""
    app = pilot.app
    await booted(pilot)
    first = app.workstream
    await send(pilot, first_prompt)
    await pilot.press("ctrl+n")
    await wait_for(pilot, lambda: len(app.manager) == 2, message="a second workstream")
    second = app.workstream
    assert second is not first
    await send(pilot, second_prompt)
    return first, second


async def test_two_workstreams_stream_at_the_same_time(fake_openai, tmp_path):
    fake_openai.queue(SlowReply("alpha " * 60, delay=0.05), SlowReply("beta " * 60, delay=0.02))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(140, 40)) as pilot:
        first, second = await two_workstreams(pilot, "talk alpha", "talk beta")
        await wait_for(pilot, lambda: "beta beta" in view_text(app, second) and first.busy and second.busy,
                       message="both turns running at once")
        await wait_for(pilot, lambda: not first.busy and not second.busy, timeout=30)
        assert view_text(app, first).count("alpha") == 60 and view_text(app, second).count("beta") == 60


async def test_background_approval_waits_and_opens_when_visited(fake_openai, tmp_path):
    write = ToolCallReply([("write_file", json.dumps({"path": "bg.txt", "content": "from the background"}),
                            "w1")], delay=0.15, chunk_size=4)
    fake_openai.queue(write, SlowReply("foreground " * 80, delay=0.02), TextReply("Background done."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(140, 40)) as pilot:
        background, foreground = await two_workstreams(pilot, "write bg.txt", "keep talking")
        tabs = app.main_screen.query_one(TabBar)
        await wait_for(pilot, lambda: tabs.tabs[0].pending == 1, message="background approval marked on its tab")
        assert not isinstance(app.screen, ApprovalScreen)  # never shown in the wrong workstream
        assert "waiting" in str(tabs.render())
        assert app.attention.sent  # desktop notification sequence emitted
        chars = len(view_text(app, foreground))
        await wait_for(pilot, lambda: len(view_text(app, foreground)) > chars + 20, message="foreground streams on")
        await pilot.press("ctrl+g")  # jump to the workstream that needs attention
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen))
        assert app.focused_id == background.id and "bg.txt" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: (tmp_path / "ws" / "bg.txt").exists())
        await wait_for(pilot, lambda: "Background done." in view_text(app, background))


async def test_alt_digit_switches_tabs_including_option_characters(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await pilot.press("ctrl+n")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.manager) == 3)
        ids = [w.id for w in app.manager]
        await pilot.press("inverted_exclamation_mark")  # what ESC+1 decodes to in a real terminal
        assert app.focused_id == ids[0]
        await pilot.press("trade_mark_sign")  # ESC+2
        assert app.focused_id == ids[1]
        await pilot.press("alt+3")
        assert app.focused_id == ids[2]
        await pilot.press("ctrl+pagedown")
        assert app.focused_id == ids[0]


async def test_eviction_closes_the_oldest_idle_workstream(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url, max_open=2)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        first = app.workstream
        await send(pilot, "hello")  # gives it a message so it is not pruned as empty
        await wait_for(pilot, lambda: first.turns == 1)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.manager) == 2)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: first not in app.manager.workstreams)
        assert len(app.manager) == 2
        assert await app.store.get_workstream(first.id) is not None  # still saved and resumable


async def test_split_layout_and_tabs_persist_across_restart(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        await send(pilot, "left pane")
        await pilot.press("f3")
        await wait_for(pilot, lambda: len(app.layout_tree.leaves()) == 2)
        await send(pilot, "right pane")
        await pilot.press("f4")
        await wait_for(pilot, lambda: len(app.layout_tree.leaves()) == 3)
        layout = app.layout_tree.to_dict()
        tabs = [w.id for w in app.manager]
        focused = app.focused_id
        await wait_for(pilot, lambda: all(not w.busy for w in app.manager))
        await pilot.pause(0.3)
    again = make_app(tmp_path, fake_openai.base_url)
    async with again.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        assert again.layout_tree.to_dict() == layout
        assert [w.id for w in again.manager] == tabs and again.focused_id == focused
        area = again.main_screen.query_one(PaneArea)
        shown = [v for v in area.views() if v.display]
        assert len(shown) == 3
        assert "left pane" in screen_text(again) and "right pane" in screen_text(again)


async def test_pane_cycling_and_closing(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        first = app.focused_id
        await pilot.press("f3")
        await wait_for(pilot, lambda: len(app.layout_tree.leaves()) == 2)
        second = app.focused_id
        await pilot.press("f2")
        assert app.focused_id == first
        await pilot.press("f8")
        assert app.layout_tree.leaves() == [second] and app.focused_id == second
        assert len(app.manager) == 2  # closing a pane keeps the workstream open as a tab


async def test_auto_title_after_first_exchange(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Use a retry decorator."), TextReply("Retrying Flaky Network Calls."))
    app = make_app(tmp_path, fake_openai.base_url, auto_title=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        workstream = app.workstream
        await send(pilot, "how do I retry flaky network calls in python?")
        await wait_for(pilot, lambda: workstream.title == "Retrying Flaky Network Calls", message="auto title")
        title_request = fake_openai.requests[-1]
        assert not title_request.get("stream") and title_request["max_tokens"] <= 32
        assert (await app.store.get_workstream(workstream.id)).title == "Retrying Flaky Network Calls"
        assert "Retrying Flaky Network" in str(app.main_screen.query_one(TabBar).render())  # shortened to fit


async def test_delete_asks_first_and_removes_history(fake_openai, tmp_path):
    from app.tui.screens.confirm import ConfirmScreen

    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        doomed = app.workstream
        await send(pilot, "temporary work")
        await wait_for(pilot, lambda: doomed.turns == 1)
        await send(pilot, "/delete")
        await wait_for(pilot, lambda: screen_is(app, ConfirmScreen))
        await pilot.press("n")
        assert await app.store.get_workstream(doomed.id) is not None
        await send(pilot, "/delete")
        await wait_for(pilot, lambda: screen_is(app, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.manager.get(doomed.id) is None)
        assert await app.store.get_workstream(doomed.id) is None
        assert len(app.manager) == 1  # a fresh workstream replaces the last closed tab
