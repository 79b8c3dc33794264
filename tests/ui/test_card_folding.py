"""Tool cards drawn again keep the state the user left them in (a rewind redraws the transcript), and
cards of a reopened workstream open as live ones do, not all collapsed."""

from __future__ import annotations

import json

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import booted, focused_view, make_app, screen_text, send, take_turn, wait_for
from widgets.tool_card import ToolCard


def cards(app) -> dict[str, ToolCard]:
    return dict(focused_view(app).transcript.cards)


async def test_a_rewind_keeps_each_card_as_the_user_left_it_and_a_restart_opens_them(fake_openai, tmp_path):
    (tmp_path / "ws").mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / "ws" / name).write_text(f"{name} text\n")
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "a.txt"}), "r1"),
                                     ("read_file", json.dumps({"path": "b.txt"}), "r2")]), TextReply("read two"),
                      ToolCallReply([("read_file", json.dumps({"path": "c.txt"}), "r3")]), TextReply("read c"))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await booted(pilot)
        await take_turn(pilot, "read a and b")
        await take_turn(pilot, "read c")
        assert not any(card.collapsed for card in cards(app).values())  # live cards are open
        first = cards(app)["r1"]
        first._title.focus()
        await pilot.press("enter")  # the user folds the first card
        await wait_for(pilot, lambda: first.collapsed, message="folded")
        focused_view(app).prompt.focus()
        await send(pilot, "/rewind 1")
        await wait_for(pilot, lambda: "Rewound 1 turn" in screen_text(app), message="rewound")
        await wait_for(pilot, lambda: set(cards(app)) == {"r1", "r2"}, message="redrawn")
        assert cards(app)["r1"] is not first  # drawn again, folded as it was left
        assert cards(app)["r1"].collapsed and not cards(app)["r2"].collapsed
        workstream_id = app.workstream.id
    again = make_app(tmp_path, fake_openai.base_url, resume=workstream_id[:8])
    async with again.run_test(size=(120, 40)) as pilot:
        await booted(pilot)
        await wait_for(pilot, lambda: set(cards(again)) == {"r1", "r2"}, message="the stored cards")
        assert not any(card.collapsed for card in cards(again).values())  # as live ones open
