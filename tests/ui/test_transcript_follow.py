"""The transcript follows new output, even a burst taller than the view, until the user scrolls away."""

from __future__ import annotations

from app.engine import events as ev
from tests.ui.helpers import make_app, screen_text, wait_for

LOG = "".join(f"line {n}\n" for n in range(40))


def tall_burst(call_id: str) -> list:
    """A tool call whose output (capped at 20 visible lines) arrives at once, then its result."""
    return [ev.ToolCallAdded(call_id, "bash", "cat build.log", '{"command": "cat build.log"}'),
            ev.ToolCallUpdated(call_id, "running"), ev.ToolOutput(call_id, LOG),
            ev.ToolResultReady(call_id, LOG, False), ev.ToolCallUpdated(call_id, "done")]


async def test_follows_a_tall_burst_and_respects_scrolling_away(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
        emit = app.workstream.session.emit
        transcript = app.main_screen.view_for(app.focused_id).transcript
        emit(ev.StateChanged("running"))
        emit(ev.UserMessageAdded("Show me the logs."))
        for event in tall_burst("c1") + tall_burst("c2") + tall_burst("c3"):
            emit(event)
        await wait_for(pilot, lambda: transcript.max_scroll_y > 40 and transcript.is_vertical_scroll_end,
                       message="the view follows the burst to its end")

        transcript.scroll_home(animate=False)  # the user scrolls up to read
        await wait_for(pilot, lambda: transcript.scroll_y == 0, message="scrolled to the top")
        height_before = transcript.max_scroll_y
        for event in tall_burst("c4"):
            emit(event)
        await wait_for(pilot, lambda: transcript.max_scroll_y > height_before, message="the new output laid out")
        await pilot.pause(0.5)  # room for a wrong follow to happen
        assert transcript.scroll_y < transcript.max_scroll_y - 10, "new output must not yank the view back"


async def test_an_answer_that_collapses_long_reasoning_keeps_the_view_at_the_end(tmp_path):
    """Textual scrolls a Collapsible into view when it closes; the reasoning block closed by the
    answer must not pull the view up to it (it then stopped following for good)."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
        emit = app.workstream.session.emit
        transcript = app.main_screen.view_for(app.focused_id).transcript
        for turn in range(3):
            emit(ev.StateChanged("running"))
            emit(ev.UserMessageAdded(f"Question {turn}"))
            emit(ev.AssistantStarted())
            emit(ev.ReasoningDelta("".join(f"thought {n}\n" for n in range(30))))  # taller than the view
            await wait_for(pilot, lambda: "thought 29" in screen_text(app), message="reasoning shown")
            emit(ev.ContentDelta("".join(f"Answer {turn} line {n}.\n\n" for n in range(30))))
            emit(ev.AssistantFinished("answer", "thoughts", "stop"))
            emit(ev.StateChanged("idle"))
            await wait_for(pilot, lambda: f"Answer {turn} line 29." in screen_text(app), message="answer shown")
            await wait_for(pilot, lambda: transcript.max_scroll_y > 40 * (turn + 1) and transcript.is_vertical_scroll_end,
                           message=f"turn {turn}: the view follows the answer to its end "
                                   f"(scroll_y={transcript.scroll_y}, max={transcript.max_scroll_y})")
