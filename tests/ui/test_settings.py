"""The settings screen writes config.toml through tomlkit: a commented file keeps every comment and
untouched line; bad numbers are refused in words; a saved theme and keymap apply at once."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select, Switch

from app.settings.config import load_config
from app.tui.screens.settings import SettingsScreen
from app.tui.comforts.settings_file import write_settings
from tests.ui.helpers import booted, make_app, screen_is, screen_text, wait_for

COMMENTED = """\
# Whimbrel config: hand-written, keep my notes
[ui]
bell = true   # I like the bell

# how long to keep things
[workstreams]
retention_days = 90   # three months
max_open = 20

[models.local]   # the box under my desk
base_url = "http://127.0.0.1:8000/v1"
model = "qwen"

[model]
default = "local"
"""


def test_writing_settings_keeps_comments_order_and_untouched_lines(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    write_settings(path, {("workstreams", "retention_days"): 30, ("ui", "theme"): "nord"},
                   {"new_workstream": "ctrl+t"})
    text = path.read_text()
    before, after = COMMENTED.splitlines(), text.splitlines()
    changed = [line for line in before if line not in after]
    assert changed == ["retention_days = 90   # three months"]
    assert "retention_days = 30   # three months" in after  # the comment on the line stays too
    assert text.index("[ui]") < text.index("[workstreams]") < text.index("[models.local]")
    config = load_config(path)
    assert (config.retention_days, config.theme, config.keymap) == (30, "nord", {"new_workstream": "ctrl+t"})
    write_settings(path, {}, {"new_workstream": ""})  # an emptied key override is removed
    assert load_config(path).keymap == {}


def settings_app(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    app = make_app(tmp_path, config=load_config(path))
    app.options.config_path = path
    return app, path


async def open_settings(pilot) -> SettingsScreen:
    await booted(pilot)
    pilot.app.main_screen.view_for(pilot.app.focused_id).prompt.insert("/settings")
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen_is(pilot.app, SettingsScreen), message="the settings screen")
    return pilot.app.screen


async def test_saving_from_the_screen_writes_the_file_and_applies_theme_and_keys(tmp_path):
    app, path = settings_app(tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#setting-ui-bell", Switch).value = False
        screen.query_one("#setting-workstreams-retention_days", Input).value = "14"
        screen.query_one("#setting-ui-theme", Select).value = "whimbrel-light"
        screen.query_one("#key-new_workstream", Input).value = "ctrl+t"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, SettingsScreen))
        await wait_for(pilot, lambda: any("Saved to" in n.message for n in app._notifications), message="saved")
        config = load_config(path)
        assert (config.bell, config.retention_days, config.theme) == (False, 14, "whimbrel-light")
        assert config.keymap == {"new_workstream": "ctrl+t"} and config.models["local"].model == "qwen"
        assert "# the box under my desk" in path.read_text()
        assert app.theme == "whimbrel-light"
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: len(app.manager.workstreams) == 2, message="the new key works at once")


async def test_a_bad_number_is_refused_and_nothing_written(tmp_path):
    app, path = settings_app(tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#setting-workstreams-max_open", Input).value = "many"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "'many' is not a whole number" in screen_text(app))
        assert isinstance(app.screen, SettingsScreen) and path.read_text() == COMMENTED
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SettingsScreen))
    assert path.read_text() == COMMENTED


async def test_the_default_mode_a_memory_limit_and_a_dialogs_key_are_saved(tmp_path):
    from app.tui.screens.confirm import ConfirmScreen

    app, path = settings_app(tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_settings(pilot)
        screen.query_one("#setting-policy-mode", Select).value = "plan"
        screen.query_one("#setting-memory-per_turn", Input).value = "3"
        screen.query_one("#key-confirm--yes", Input).value = "j"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any("Saved to" in n.message for n in app._notifications), message="saved")
        config = load_config(path)
        assert (config.policy_mode, config.memory_per_turn, config.keymap) == ("plan", 3, {"confirm.yes": "j"})
        assert "# the box under my desk" in path.read_text() and '"confirm.yes" = "j"' in path.read_text()
        answers: list[bool] = []
        app.push_screen(ConfirmScreen("Sure?"), callback=answers.append)
        await wait_for(pilot, lambda: screen_is(app, ConfirmScreen))
        await pilot.press("j")
        await wait_for(pilot, lambda: answers == [True], message="the dialog's new key works at once")
