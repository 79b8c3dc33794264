"""Copying: F6 puts the last reply on the clipboard, F7 its code block (a picker when there are several);
the text goes out as OSC 52 (in a headless app Textual keeps it as `app.clipboard`)."""

from __future__ import annotations

from app.tui.comforts.copying import code_blocks
from app.tui.screens.code_picker import CodePickerScreen
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, make_app, screen_is, screen_text, wait_for

TWO_BLOCKS = """Here you go:

```python
def add(a, b):
    return a + b
```

and the shell part:

~~~bash
pytest -q
~~~
"""


async def ask(pilot, text: str, answer: str) -> None:
    await booted(pilot)
    pilot.app.main_screen.view_for(pilot.app.focused_id).prompt.insert(text)
    await pilot.press("enter")
    await wait_for(pilot, lambda: answer in screen_text(pilot.app), message=answer)
    # the answer can be on screen while the reply still streams: F6 would copy it as far as it got
    await wait_for(pilot, lambda: not pilot.app.workstream.busy, message="the reply finished")


def test_code_blocks_are_found_with_their_language():
    blocks = code_blocks(TWO_BLOCKS)
    assert [(b.language, b.text) for b in blocks] == [("python", "def add(a, b):\n    return a + b"),
                                                      ("bash", "pytest -q")]
    assert code_blocks("no code here") == []
    assert code_blocks("````md\n```inner```\n````")[0].text == "```inner```"


async def test_f6_copies_the_last_reply_and_f7_picks_a_code_block(fake_openai, tmp_path):
    fake_openai.queue(TextReply(TWO_BLOCKS))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(110, 30)) as pilot:
        await ask(pilot, "show me", "the shell part")
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.clipboard == TWO_BLOCKS, message="the reply on the clipboard")
        await pilot.press("f7")
        await wait_for(pilot, lambda: screen_is(app, CodePickerScreen), message="the picker")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.clipboard == "pytest -q", message="the second block copied")
        assert not isinstance(app.screen, CodePickerScreen)


async def test_a_single_block_is_copied_at_once_and_no_reply_is_said(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Run:\n\n```\nmake test\n```\n"))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(110, 30)) as pilot:
        await booted(pilot)
        await pilot.press("f7")
        await wait_for(pilot, lambda: any("No reply to copy yet" in n.message for n in app._notifications))
        await ask(pilot, "how?", "make test")
        await pilot.press("f7")
        await wait_for(pilot, lambda: app.clipboard == "make test", message="the only block copied")
