"""Radio buttons, checkboxes and switches show their state as a glyph, not only by colour: a text
capture of the screen tells the chosen radio from the others and a switch that is on from one that is off."""

from __future__ import annotations

from textual.widgets import RadioButton, RadioSet, Switch

from app.tui.screens.memory_note import MemoryNoteScreen
from tests.ui.helpers import booted, make_app, screen_is, send, wait_for
from tests.ui.test_settings import open_settings, settings_app


def drawn(widget) -> str:
    """The widget's lines as a text capture gets them (no colour)."""
    return "\n".join("".join(segment.text for segment in widget.render_line(y)) for y in range(widget.size.height))


async def test_the_chosen_radio_button_has_a_glyph_of_its_own(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await booted(pilot)
        await send(pilot, "# tabs, not spaces")
        await wait_for(pilot, lambda: screen_is(app, MemoryNoteScreen), message="the note dialog")
        kinds = app.screen.query_one("#note-type", RadioSet)
        marks = {button.name: drawn(button) for button in kinds.query(RadioButton)}
        assert "●" in marks["project"] and all("○" in text and "●" not in text
                                              for name, text in marks.items() if name != "project")
        kinds.focus()
        await pilot.press("down", "down", "enter")  # feedback is chosen: the glyph moves with it

        def chosen() -> list[str]:
            return [button.name for button in kinds.query(RadioButton) if "●" in drawn(button)]

        await wait_for(pilot, lambda: chosen() == ["feedback"], message="the glyph moved")


async def test_a_switch_says_on_or_off_in_a_text_capture(tmp_path):
    app, _path = settings_app(tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_settings(pilot)
        bell = screen.query_one("#setting-ui-bell", Switch)
        before = bell.value
        assert ("on" if before else "off") in drawn(bell)
        bell.value = not before
        await wait_for(pilot, lambda: ("off" if before else "on") in drawn(bell), message="the switch redrawn")


async def test_a_selection_lists_chosen_options_are_marked_in_a_text_capture():
    from textual.app import App, ComposeResult

    from widgets.toggles import MarkedSelectionList

    class Host(App):
        def compose(self) -> ComposeResult:
            yield MarkedSelectionList(("alpha", "a", True), ("beta", "b", False), ("gamma", "c", True))

    app = Host()
    async with app.run_test(size=(40, 8)) as pilot:
        choices = app.query_one(MarkedSelectionList)

        def boxes() -> list[str]:
            return [line[:3] for line in drawn(choices).splitlines()[:3]]

        assert boxes() == ["▐X▌", "▐ ▌", "▐X▌"]
        choices.focus()
        await pilot.press("down", "space")  # beta chosen: its box is marked too
        await wait_for(pilot, lambda: boxes() == ["▐X▌", "▐X▌", "▐X▌"], message="beta's box marked")
        assert choices.selected == ["a", "c", "b"]
