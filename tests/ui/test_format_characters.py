"""Zero-width and bidi characters typed into the prompt reach the model as typed (a ZWJ emoji stays one
emoji), while the terminal never receives a raw bidi control: the screen shows it inert."""

from __future__ import annotations

from textual._xterm_parser import XTermParser

from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, focused_view, make_app, wait_for
from widgets.messages import UserMessage
from widgets.textual_internals import terminal_output

TYPED = "zero\u200bwidth non\u200cjoin \U0001F469\u200d\U0001F4BB \u202eevil\u202c \u202dlr\u202c bom\ufeffend"
BIDI = {"\u202c", "\u202d", "\u202e"}


def type_as_a_terminal(app, text: str) -> None:
    """`text` as the terminal's bytes would arrive: each character a key event, decoded by Textual's parser."""
    for event in XTermParser().feed(text):
        event.set_sender(app)
        app._driver.send_message(event)


def last_user_content(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


async def test_format_characters_typed_reach_the_model_and_bidi_controls_stay_off_the_terminal(
        fake_openai, tmp_path) -> None:
    fake_openai.queue(TextReply("Noted."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        prompt = focused_view(app).prompt
        type_as_a_terminal(app, TYPED)
        await wait_for(pilot, lambda: prompt.text.endswith("end"), message="typed")
        assert prompt.text == TYPED
        assert not BIDI & set(terminal_output(app.screen)), "a raw bidi control sent to the terminal (prompt)"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.workstream.turns == 1, message="the turn")
        assert last_user_content(fake_openai.requests[-1]) == TYPED
        shown = focused_view(app).transcript.query_one(UserMessage)
        assert "\U0001F469\u200d\U0001F4BB" in str(shown.render()), "the ZWJ emoji is one emoji on screen"
        output = terminal_output(app.screen)
        assert not BIDI & set(output), "a raw bidi control sent to the terminal (transcript)"
        assert "\ufffdevil\ufffd" in str(shown.render()), "bidi controls are shown, inert"


async def test_the_cursor_lands_where_the_next_character_goes_after_bidi_controls(tmp_path) -> None:
    """A bidi control is zero cells wide as typed but drawn as a mark one cell wide: the prompt wrapped
    its line by the first, so each one pushed the line's end and the cursor a cell further, past the
    prompt's edge, until the cursor was out of sight. Drawn, wrapped and placed alike, the cursor sits
    just after the last character typed, inside the prompt, and every character typed is on screen."""
    from app.vocabulary.inert import inert

    app = make_app(tmp_path)
    async with app.run_test(size=(40, 20)) as pilot:
        await booted(pilot)
        prompt = focused_view(app).prompt
        typed = ""
        for character in "\u202e\u202c" * 3 + "abcdefghijklmnopqrstuvwxyz0123456789":
            type_as_a_terminal(app, character)
            typed += character
            await wait_for(pilot, lambda: prompt.text == typed, message="typed")
            await pilot.pause()
            cursor, region = prompt.cursor_screen_offset, prompt.content_region
            assert region.contains(cursor.x, cursor.y), f"the cursor at {cursor} is outside the prompt ({region})"
            rows = [strip.text for strip in app.screen._compositor.render_strips()]
            before = rows[cursor.y][cursor.x - 1] if cursor.x > region.x else rows[cursor.y - 1][region.right - 1]
            assert before == inert(character), f"the cell before the cursor shows {before!r} after typing {character!r}"
        shown = "".join(rows[y][region.x:region.right].rstrip() for y in range(region.y, region.bottom))
        assert shown == inert(typed), "every character typed is drawn, bidi controls as marks"
