"""Themes: the palette's "Theme" (or /theme) opens Whimbrel's picker; moving through it previews live, Esc
puts the old theme back, Enter keeps one and writes it to config.toml (comments kept); a restart uses it.
/theme NAME uses and saves a theme at once; a name that is no theme is refused with the near ones."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from app.settings.config import load_config
from app.tui.screens.theme_picker import ThemePickerScreen
from app.tui.comforts.theming import theme_names
from tests.ui.helpers import booted, make_app, screen_is, screen_text, send, wait_for

COMMENTED = """\
# my Whimbrel settings
[ui]
bell = false  # no beeps at night

[model]
# default = "local"
"""


def app_with_config(tmp_path: Path, text: str | None):
    path = tmp_path / "config.toml"
    if text is not None:
        path.write_text(text)
    app = make_app(tmp_path, config=load_config(path))
    app.options.config_path = path
    return app, path


async def open_picker_from_palette(pilot) -> ThemePickerScreen:
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: screen_is(app, CommandPalette), message="the palette")
    await pilot.press(*"theme")
    await wait_for(pilot, lambda: any(str(o.prompt).startswith("Theme") for o in
                                      app.screen.query_one("CommandList").options), message="Theme listed")
    await pilot.pause(0.2)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen_is(app, ThemePickerScreen), message="the theme picker")
    return app.screen


async def test_the_picker_previews_live_and_esc_restores(tmp_path):
    app, path = app_with_config(tmp_path, None)
    async with app.run_test(size=(110, 34)) as pilot:
        await booted(pilot)
        before = app.theme
        names = theme_names(app)
        assert names[:2] == ["whimbrel-dark", "whimbrel-light"] and "nord" in names and "textual-light" in names
        await open_picker_from_palette(pilot)
        await pilot.press("down")
        await wait_for(pilot, lambda: app.theme != before, message="the highlighted theme is applied")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ThemePickerScreen))
        assert app.theme == before
    assert not path.exists(), "a cancelled pick writes nothing"


async def test_a_kept_theme_is_saved_with_the_comments_and_used_after_a_restart(tmp_path):
    app, path = app_with_config(tmp_path, COMMENTED)
    async with app.run_test(size=(110, 34)) as pilot:
        await booted(pilot)
        picker = await open_picker_from_palette(pilot)
        while app.theme != "whimbrel-light":
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ThemePickerScreen))
        await wait_for(pilot, lambda: 'theme = "whimbrel-light"' in path.read_text(), message="saved")
        assert picker.original != "whimbrel-light"
    text = path.read_text()
    assert text.startswith("# my Whimbrel settings\n[ui]\nbell = false  # no beeps at night\n")
    assert '# default = "local"' in text
    again, _ = app_with_config(tmp_path, None)  # a restart reads the file written above
    async with again.run_test(size=(110, 34)) as pilot:
        await booted(pilot)
        assert again.theme == "whimbrel-light" and not again.current_theme.dark


async def test_an_unknown_configured_theme_is_reported_and_the_default_kept(tmp_path):
    app, _ = app_with_config(tmp_path, '[ui]\ntheme = "no-such-theme"\n')
    async with app.run_test(size=(110, 34)) as pilot:
        await booted(pilot)
        await wait_for(pilot, lambda: any("'no-such-theme' is not a theme" in n.message
                                          for n in app._notifications), message="the problem is shown")
        assert app.theme == "textual-dark"


async def test_slash_theme_opens_the_picker_and_slash_theme_name_uses_and_saves_it(tmp_path):
    app, path = app_with_config(tmp_path, COMMENTED)
    async with app.run_test(size=(110, 34)) as pilot:
        await booted(pilot)
        await send(pilot, "/theme")
        await wait_for(pilot, lambda: screen_is(app, ThemePickerScreen), message="/theme opens the picker")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ThemePickerScreen))
        assert not path.read_text().count("theme =")
        await send(pilot, "/theme whimbrel-light")
        await wait_for(pilot, lambda: app.theme == "whimbrel-light", message="the named theme is used")
        await wait_for(pilot, lambda: 'theme = "whimbrel-light"' in path.read_text(), message="and saved")
        assert path.read_text().startswith("# my Whimbrel settings\n")
        await send(pilot, "/theme Light")
        await wait_for(pilot, lambda: "No theme is called 'Light'" in screen_text(app), message="refused")
        assert "whimbrel-light" in screen_text(app) and app.theme == "whimbrel-light"
