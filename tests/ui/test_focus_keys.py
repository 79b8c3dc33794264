"""Keys typed right after a key that moves focus land in the newly focused prompt.

On a loaded machine a terminal delivers a burst: the switching key and the next characters arrive
before the app has handled any of them. The bursts here are posted the same way (all at once, no
waiting between keys), which is what `pilot.press` does not do.
"""

from __future__ import annotations

from app.tui.screens.main import OPTION_DIGIT_KEYS
from tests.ui.helpers import booted, burst, make_app, wait_for


def prompt_text(app, workstream) -> str:
    return app.main_screen.view_for(workstream.id).prompt.text


async def type_right_after(pilot, key: str, text: str):
    """Burst `key` (one that opens a workstream) and `text` at once; once the second workstream is
    open, checks that the text landed in its prompt and not in the first's. Returns (first, second)."""
    app = pilot.app
    await booted(pilot)
    first = app.workstream
    burst(app, key, *text)
    await wait_for(pilot, lambda: len(app.manager) == 2, message=f"{key} made a second workstream")
    await pilot.pause()
    second = app.workstream
    assert second is not first
    assert prompt_text(app, second) == text
    assert prompt_text(app, first) == ""
    return first, second


async def test_text_typed_right_after_ctrl_n_lands_in_the_new_tab(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        _, second = await type_right_after(pilot, "ctrl+n", "hey")
        assert app.focused is app.main_screen.view_for(second.id).prompt


async def test_text_typed_right_after_alt_digit_lands_in_that_tab(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        first = app.workstream
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.manager) == 2, message="second tab")
        second = app.workstream
        burst(app, OPTION_DIGIT_KEYS[0], "o", "k")  # Alt+1 as a terminal sends it (ESC 1)
        await pilot.pause()
        assert app.workstream is first
        assert prompt_text(app, first) == "ok"
        assert prompt_text(app, second) == ""


async def test_text_typed_right_after_a_split_lands_in_the_new_pane(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 30)) as pilot:
        first, second = await type_right_after(pilot, "f3", "new")  # F3 splits the pane
        burst(app, "f2", "x")  # F2 focuses the next pane: back to the first
        await pilot.pause()
        assert app.workstream is first
        assert prompt_text(app, first) == "x"
        assert prompt_text(app, second) == "new"
