"""The end of a long reply is on screen once its turn ends, whatever the size of its deltas.

A fast stream can keep the screen from laying out until it ends (each update's paint callback runs
while the next update's batch holds paints back), so the transcript never saw itself overflow while
following: the last layout grew it and nothing scrolled there. The view stopped at paragraph 505
of 543, scrolling showed nothing more, and the store had it all. These tests read what the screen
renders once the app has painted by itself: Pilot's pauses lay the screen out on every wait, which
would hide exactly this.
"""

from __future__ import annotations

import pytest

from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, painted_by_itself, send, shown_lines, wait_unforced

LOREM = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. "


def paragraphs(count: int, size: int) -> str:
    """`count` ordinary paragraphs of about `size` characters, each saying where it ends."""
    body = LOREM * max(1, (size - 40) // len(LOREM))
    return "\n\n".join(f"Paragraph {n} begins. {body}End of paragraph {n}." for n in range(1, count + 1)) + "\n"


@pytest.mark.parametrize("count, size, delta", [(25, 2000, 8192), (25, 2000, 2048), (543, 1900, 8192)],
                         ids=["50KB-in-8KB-deltas", "50KB-in-2KB-deltas", "1MB-in-8KB-deltas"])
async def test_the_last_paragraph_is_shown_when_the_turn_ends(fake_openai, tmp_path, count, size, delta) -> None:
    fake_openai.queue(TextReply(paragraphs(count, size), chunk_size=delta))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await booted(pilot)
        await send(pilot, "go")
        await wait_unforced(lambda: app.workstream.turns and app.workstream.state == "idle", timeout=120,
                            message="the turn's end")
        await painted_by_itself(pilot)
        transcript = app.main_screen.view_for(app.focused_id).transcript
        lines = shown_lines(app, transcript)
        shown = " ".join(" ".join(lines).split())  # the paragraph's words, however they wrapped
        assert f"End of paragraph {count}." in shown, "\n".join(lines)
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_a_reply_of_a_megabyte_of_paragraphs_never_holds_the_loop_a_second(fake_openai, tmp_path,
                                                                                   loop_watchdog) -> None:
    """1 MB of ordinary paragraphs froze the screen for 3.3 s (10 MB for 83 s): the stream held every
    layout off, so no part went dormant and the one layout at its end took them all. The watchdog
    beats on the loop throughout (tests/conftest.py); no callback may hold it a second, and parts far
    above the view go dormant while the reply streams (each ends up laid out with all the others)."""
    fake_openai.queue(TextReply(paragraphs(543, 1900), chunk_size=8192))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await booted(pilot)
        await send(pilot, "go")
        transcript = app.main_screen.view_for(app.focused_id).transcript
        most = 0

        def ended() -> bool:
            nonlocal most
            most = max(most, len(transcript.query_children(".assistant-part")))  # rendered, not dormant
            return bool(app.workstream.turns) and app.workstream.state == "idle"

        await wait_unforced(ended, timeout=120, message="the turn's end")
        await painted_by_itself(pilot)
    assert loop_watchdog.longest_own < 1.0, max(loop_watchdog.holds, key=lambda hold: hold.own).describe()
    assert most < 100, f"{most} parts of the reply were rendered at once"
