"""A long streamed reply is shown in parts that look exactly like one Markdown widget; a streamed
loose list or table comes out as if the whole text had been parsed at once."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

import widgets.markdown_split as markdown_split
from widgets.markdown_split import held_back, safe_cut
from widgets.messages import AssistantMessage

REPLY = """Intro paragraph with *emphasis* and `code`.

## A heading

- one
- two

  still item two

Text after the list.

```python
def f():

    return 1
```

Closing words, a second paragraph.

| a | b |
|---|---|
| 1 | 2 |

1. first

2. second

Final paragraph.
"""


def test_cuts_only_before_a_paragraph_outside_code() -> None:
    text = "para\n\n```\ncode\n\nInside fence\n```\n\nAfter fence\n\n- item\n\n  more\n\nEnd"
    cuts = [i for i in range(len(text)) if safe_cut(text[:i + 1], i) == i]
    assert [text[i:].split("\n")[0] for i in cuts] == ["After fence", "End"]
    assert safe_cut("no blank line yet", 0) is None
    assert safe_cut("a\n\nb", 4) is None  # nothing at or after `start`


def test_a_trailing_bare_block_marker_waits_for_its_line() -> None:
    assert held_back("1. first\n\n2") == ("1. first\n\n", "2")
    assert held_back("| a | b |\n|--") == ("| a | b |\n", "|--")
    assert held_back("1. first\n\n2. sec") == ("1. first\n\n2. sec", "")
    assert held_back("prose\n\n") == ("prose\n\n", "")


class Transcript(App):
    CSS = "VerticalScroll { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield VerticalScroll()


async def screens(app: App, pilot) -> list[list[tuple[str, str]]]:
    """What the terminal shows at the top and at the bottom of the scroll area: (text, styles) per line."""
    scroll = app.query_one(VerticalScroll)
    shots = []
    for position in ("home", "end"):
        getattr(scroll, f"scroll_{position}")(animate=False)
        await pilot.pause()
        strips = app.screen._compositor.render_strips()
        shots.append([(strip.text, "".join(str(seg.style) for seg in strip)) for strip in strips])
    return shots


@pytest.mark.parametrize("piece", [1, 7, 50])
async def test_parts_render_like_one_markdown(monkeypatch, piece: int) -> None:
    monkeypatch.setattr(markdown_split, "PART_CHARS", 40)
    streamed, whole = Transcript(), Transcript()
    async with streamed.run_test(size=(60, 80)) as pilot:
        message = AssistantMessage()
        await streamed.query_one(VerticalScroll).mount(message)
        for start in range(0, len(REPLY), piece):
            await message.append_content(REPLY[start:start + piece])
        await message.finish()
        assert len(message.parts) >= 3  # really split
        assert message.shown_text == REPLY
        got = await screens(streamed, pilot)
    async with whole.run_test(size=(60, 80)) as pilot:
        await whole.query_one(VerticalScroll).mount(AssistantMessage(REPLY))
        expected = await screens(whole, pilot)
    assert got == expected


async def test_held_back_text_is_shown_when_the_reply_ends() -> None:
    app = Transcript()
    async with app.run_test(size=(60, 20)):
        message = AssistantMessage()
        await app.query_one(VerticalScroll).mount(message)
        await message.append_content("Steps:\n\n1")
        assert message.shown_text == "Steps:\n\n"
        await message.finish()
        assert message.shown_text == message.content == "Steps:\n\n1"
