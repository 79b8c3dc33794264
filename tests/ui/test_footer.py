"""The footer (widgets/footer.py) rebuilds once for a burst of binding changes, shows the keys of
where focus ended up, and says when its keys are first on screen."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button

from tests.ui.helpers import wait_for
from widgets.footer import KeysFooter


from textual.widgets import Footer


class Counted(KeysFooter):
    rebuilds = 0

    async def recompose(self) -> None:
        Counted.rebuilds += 1
        await super().recompose()


class CountedTextual(Footer):
    """Textual's own footer, for comparison."""

    rebuilds = 0

    async def recompose(self) -> None:
        CountedTextual.rebuilds += 1
        await super().recompose()


class Keys(App):
    def __init__(self, footer: type[Footer] = Counted) -> None:
        super().__init__()
        self.footer = footer
        self.shown: list[KeysFooter.KeysShown] = []

    def compose(self) -> ComposeResult:
        yield First("first", id="first")
        yield Second("second", id="second")
        yield self.footer()

    def on_keys_footer_keys_shown(self, message: KeysFooter.KeysShown) -> None:
        self.shown.append(message)


class First(Button):
    BINDINGS = [Binding("f5", "noop", "Only on first")]


class Second(Button):
    BINDINGS = [Binding("f6", "noop", "Only on second")]


def footer_text(app: App) -> str:
    return " ".join(strip.text for strip in app.screen._compositor.render_strips()[-1:])


async def rebuilds_for_a_burst_of_focus_changes(footer: type[Footer]) -> tuple[int, Keys]:
    app = Keys(footer)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        footer.rebuilds = 0
        first, second = app.query_one("#first"), app.query_one("#second")
        for _ in range(5):  # eleven focus moves in one burst, before any refresh can come between
            app.screen.set_focus(second)
            app.screen.set_focus(first)
        app.screen.set_focus(second)
        await pilot.pause()
        await pilot.pause()
        assert "Only on second" in footer_text(app) and "Only on first" not in footer_text(app)
        return footer.rebuilds, app


async def test_a_burst_of_focus_changes_rebuilds_the_footer_once_or_twice() -> None:
    ours, app = await rebuilds_for_a_burst_of_focus_changes(Counted)
    theirs, _ = await rebuilds_for_a_burst_of_focus_changes(CountedTextual)
    assert ours <= 2 < 20 <= theirs  # Textual rebuilds for each of the 22 changes (two per focus move)
    assert len(app.shown) == 1  # the first keys on screen are announced once, not per rebuild
