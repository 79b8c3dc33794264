"""Parts of a long streamed reply far above the view go dormant (no widgets) and look the same when
scrolled back into view: the transcript then shows exactly what one Markdown widget would."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

import widgets.markdown_split as markdown_split
import widgets.transcript as transcript_module
from styles import STYLES_DIR
from widgets.dormant import DormantParts
from widgets.messages import AssistantMessage
from widgets.transcript import Transcript

SECTION = """## Section {n}

Intro paragraph {n} with *emphasis* and `code`.

- one
- two

  still item two

```python
def f{n}():
    return {n}
```

| a | b |
|---|---|
| {n} | 2 |

Closing paragraph {n}, long enough to wrap over more than one line of the narrow terminal here.

"""
REPLY = "".join(SECTION.format(n=n) for n in range(12))


class TranscriptApp(App):
    CSS_PATH = [STYLES_DIR / "transcript.tcss"]

    def compose(self) -> ComposeResult:
        yield Transcript()


async def lines_at(app: App, pilot, y: int) -> list[tuple[str, str]]:
    """The screen's lines (text, styles) with the transcript scrolled to `y`, dormant parts near it woken."""
    transcript = app.query_one(Transcript)
    transcript.scroll_to(y=y, animate=False)
    await pilot.pause()
    await transcript.settle_parts()
    await pilot.pause()
    strips = app.screen._compositor.render_strips()
    return [(strip.text, "".join(str(segment.style) for segment in strip)) for strip in strips]


# What the reply's `reply_text` reads: nothing (parts keep copies), the engine's text of the reply (parts
# refer to it), or a text that does not match what was shown (parts find that out and keep copies).
REPLY_TEXTS = {"copies": None, "engine's text": lambda: REPLY, "mismatched": lambda: REPLY.upper()}


@pytest.mark.loop_held_known("waking a reply's dormant parts renders them in one go: 1.1-1.4 s on a loaded machine")
@pytest.mark.parametrize("reply_text", REPLY_TEXTS.values(), ids=REPLY_TEXTS.keys())
async def test_dormant_parts_render_like_one_markdown(monkeypatch, reply_text) -> None:
    monkeypatch.setattr(markdown_split, "PART_CHARS", 60)
    monkeypatch.setattr(transcript_module, "SLEEP_SCREENS", 1)
    monkeypatch.setattr(transcript_module, "WAKE_SCREENS", 0.5)
    streamed, whole = TranscriptApp(), TranscriptApp()
    async with streamed.run_test(size=(60, 20)) as pilot:
        transcript = streamed.query_one(Transcript)
        message = await transcript.start_assistant()
        message.reply_text = reply_text
        for start in range(0, len(REPLY), 23):
            await message.append_content(REPLY[start:start + 23])
            transcript.follow()
        await message.finish()
        await pilot.pause()
        await transcript.settle_parts()
        await pilot.pause()
        dormant = transcript.query_children(DormantParts)
        assert dormant and sum(len(d.parts) for d in dormant) >= 5  # far parts went dormant
        assert message.shown_text == REPLY  # the reply still knows all of its text
        height = transcript.virtual_size.height
        positions = [0, height // 3, height // 2, max(0, height - 20)]
        got = [await lines_at(streamed, pilot, y) for y in positions]
        assert not transcript.query_children(DormantParts) or transcript.scroll_y > 0
    async with whole.run_test(size=(60, 20)) as pilot:
        await whole.query_one(Transcript).add(AssistantMessage(REPLY))
        await pilot.pause()
        assert whole.query_one(Transcript).virtual_size.height == height  # same height, dormant or not
        expected = [await lines_at(whole, pilot, y) for y in positions]
    assert got == expected
