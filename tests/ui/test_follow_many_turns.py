"""Over many turns (some with tool calls, some with long reasoning) the transcript
keeps following new output once it is taller than the view, as long as the user never scrolled."""

from __future__ import annotations

import json

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import make_app, wait_for
from widgets.messages import AssistantMessage

TURNS = 20


def reply(turn: int) -> str:
    return "\n\n".join(f"Turn {turn}, point {n}: a few words about it." for n in range(1, 21)) + f"\n\nEnd of reply {turn}."


def reasoning(turn: int) -> str:
    return "".join(f"Thinking about turn {turn}, step {n}.\n" for n in range(30))  # taller than the view


def scripted(fake_openai, turn: int) -> None:
    """Queue turn `turn`: every third one reads a file first (a tool card, no approval needed); every
    other one thinks at length first, and its reasoning collapses once the answer begins."""
    if turn % 3 == 0:
        fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.txt"}), f"r{turn}")]))
    thought = reasoning(turn) if turn % 2 == 1 else ""
    fake_openai.queue(TextReply(reply(turn), chunk_size=2000, reasoning=thought, delay=0.3))


def last_reply_in_view(transcript) -> bool:
    """The newest reply's last line is inside the transcript's view, which is scrolled to its end."""
    replies = transcript.query_children(AssistantMessage)
    if not replies:
        return False
    newest = replies.last()
    last = newest.parts[-1] if newest.parts else newest
    view_bottom = transcript.scroll_y + transcript.scrollable_content_region.height
    return transcript.is_vertical_scroll_end and last.virtual_region.bottom <= view_bottom + 1


async def test_twenty_turns_keep_the_newest_reply_in_view(fake_openai, tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("one\ntwo\nthree\n")
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot")
        view = app.main_screen.view_for(app.focused_id)
        transcript = view.transcript
        for turn in range(1, TURNS + 1):
            scripted(fake_openai, turn)
            view.prompt.insert(f"question {turn}")
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.workstream.state == "idle"
                           and any(f"End of reply {turn}." in reply.content
                                   for reply in transcript.query_children(AssistantMessage)[-1:]),
                           message=f"reply {turn} streamed")
            await wait_for(pilot, lambda: last_reply_in_view(transcript),
                           message=f"turn {turn}: the newest reply is in view (scroll_y={transcript.scroll_y}, "
                                   f"max={transcript.max_scroll_y})")
        assert transcript.max_scroll_y > 30  # the transcript really overflowed the view
