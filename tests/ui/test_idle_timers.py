"""An idle app is not woken for nothing: the tab bar's spinner turns only while a tab is
busy, and its timer sleeps otherwise."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.ui.helpers import wait_for
from widgets.tab_bar import SPINNER, TabBar, TabInfo


class TabsOnly(App):
    def compose(self) -> ComposeResult:
        yield TabBar()


def glyph(bar: TabBar) -> str:
    return bar.render().plain.split()[2]  # " 1 name ◐": the first tab's state glyph


async def test_the_spinner_turns_while_a_tab_is_busy_and_sleeps_when_none_is():
    app = TabsOnly()
    async with app.run_test() as pilot:
        bar = app.query_one(TabBar)
        bar.show([TabInfo("work", "idle")], 0)
        await pilot.pause()
        assert glyph(bar) == "●" and not bar._pulse_timer._active.is_set()  # no busy tab: no wake-ups
        bar.show([TabInfo("work", "thinking")], 0)
        first = glyph(bar)
        assert first in SPINNER
        await wait_for(pilot, lambda: glyph(bar) != first, message="the spinner's next frame")
        bar.show([TabInfo("work", "idle")], 0)
        assert glyph(bar) == "●" and not bar._pulse_timer._active.is_set()
