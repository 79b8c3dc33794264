"""A bracketed paste is text: whatever it holds lands in the prompt as text, and nothing in it is a key.

Textual's terminal parser read an ESC inside a paste as the start of a key sequence: a pasted
`text ESC ^Q ESC` pressed Ctrl+Q and quit the app, and pasted coloured output came out reordered
(its escape sequences' tails typed as keys ahead of the paste). The parser the terminal driver uses
(widgets/textual_internals.py) is fed the bytes a terminal sends; the app gets the paste as Pilot
would post it; tests/e2e/test_paste.py pastes into the real program on a pty.
"""

from __future__ import annotations

import pytest
from textual import events

from tests.ui.helpers import booted, focused_view, make_app, paste, wait_for
from tests.ui.inert_helpers import assert_inert
from widgets.textual_internals import PasteAsTextParser

START, END = "\x1b[200~", "\x1b[201~"
CHORD = "text \x1b\x11\x1b"  # text, ESC, Ctrl+Q, ESC
COLOURED = "\x1b[31mstart\x1b[0m middle \x1b[1;32mend\x1b[0m"


def parsed(*reads: str) -> list[tuple[str, str]]:
    """What the driver's parser makes of `reads` (each one read from the terminal at once)."""
    parser = PasteAsTextParser()
    found = []
    for data in reads:
        for event in parser.feed(data):
            found.append(("paste", event.text) if isinstance(event, events.Paste) else ("key", event.key))
    return found


@pytest.mark.parametrize("pasted", [CHORD, COLOURED, "\x1b", "\x1b[201", "a\x1b\x1b[200~b", "\x03\x04\x1b[A\x7f"],
                         ids=["esc-ctrl-q-esc", "coloured", "lone-esc", "end-marker-unfinished", "nested-start",
                              "ctrl-c-d-up-backspace"])
def test_everything_between_the_markers_is_the_paste(pasted: str) -> None:
    sent = "a" + START + pasted + END + "b"
    assert parsed(sent) == [("key", "a"), ("paste", pasted), ("key", "b")]
    assert parsed(*sent) == [("key", "a"), ("paste", pasted), ("key", "b")]  # a byte per read


def test_keys_around_pastes_are_still_keys() -> None:
    assert parsed("\x1b[A", START + "x" + END, "\x11", "q") == [
        ("key", "up"), ("paste", "x"), ("key", "ctrl+q"), ("key", "q")]
    assert parsed(START + "one" + END + START + "two" + END) == [("paste", "one"), ("paste", "two")]


def test_a_lone_escape_is_still_the_escape_key() -> None:
    import time

    parser = PasteAsTextParser()
    assert list(parser.feed("\x1b")) == []
    deadline = time.monotonic() + 5
    keys: list[str] = []
    while not keys and time.monotonic() < deadline:  # the driver ticks the parser until ESC's timeout
        keys = [event.key for event in parser.tick()]
    assert keys == ["escape"]


@pytest.mark.parametrize("pasted", [CHORD, COLOURED], ids=["esc-ctrl-q-esc", "coloured"])
async def test_a_pasted_chord_lands_in_the_prompt_as_text(tmp_path, pasted: str) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await booted(pilot)
        prompt = focused_view(app).prompt
        paste(app, pasted)
        await wait_for(pilot, lambda: prompt.text == pasted, message="the paste in the prompt")
        assert app.is_running
        shown = pasted.replace("\x1b", "␛").replace("\x11", "␑")
        await assert_inert(pilot, shown)
