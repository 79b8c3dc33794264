"""Keymaps: [keymap] in config.toml moves a binding to other keys (the footer and /help show them), and
conflicts are reported at start naming both bindings; the config rejects a keymap value that is no string."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings.config import ConfigError, load_config
from app.tui.commands.keymap import help_rows, keymap_problems, main_bindings
from app.tui.screens.help import HelpScreen
from tests.ui.helpers import booted, make_app, screen_is, screen_text, wait_for


def bottom_line(app) -> str:
    return " ".join(strip.text for strip in app.screen._compositor.render_strips()[-1:])


def app_with_keymap(tmp_path: Path, text: str):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return make_app(tmp_path, config=load_config(path))


def test_every_main_screen_binding_has_an_id():
    from app.tui.screens.main import MainScreen

    assert all(binding.id for binding in MainScreen.BINDINGS)
    assert len({b.id for b in main_bindings()}) == len(MainScreen.BINDINGS)


def test_a_conflict_names_both_bindings():
    problems = keymap_problems({"cancel_turn": "ctrl+n"})
    assert problems == ["[keymap] ctrl+n is bound twice: cancel_turn (Cancel turn) and new_workstream (New); "
                        "change one of them in [keymap]"]
    assert keymap_problems({"new_workstream": "f12"}) == []
    assert "not a binding id" in keymap_problems({"no_such": "f12"})[0]


def test_help_lists_the_keys_in_force():
    rows = dict((what, keys) for keys, what in help_rows({"new_workstream": "ctrl+t"}))
    assert rows["new workstream"] == "Ctrl+T" and rows["this help (also /help)"] == "F1"
    assert rows["switch to workstream 1…9"] == "Alt+1…9"


def test_a_keymap_value_must_be_a_string(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[keymap]\nnew_workstream = 5\n")
    with pytest.raises(ConfigError, match="line 2.*keymap.*new_workstream must be a string"):
        load_config(path)
    path.write_text('[keymap]\nnew_workstream = "ctrl+t"\n')
    assert load_config(path).keymap == {"new_workstream": "ctrl+t"}


async def test_a_remapped_key_works_and_shows_in_the_footer_and_help(tmp_path):
    app = app_with_keymap(tmp_path, '[keymap]\nnew_workstream = "ctrl+t"\nhelp = "f5"\n')
    async with app.run_test(size=(160, 30)) as pilot:
        await booted(pilot)
        await wait_for(pilot, lambda: "^t New" in bottom_line(app), message="the footer shows the new key")
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: len(app.manager.workstreams) == 2, message="ctrl+t opens a workstream")
        await pilot.press("ctrl+n")  # the old key no longer does
        await pilot.pause(0.2)
        assert len(app.manager.workstreams) == 2
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen_is(app, HelpScreen), message="help on its new key")
        assert "Ctrl+T" in screen_text(app) and "new workstream" in screen_text(app)


async def test_conflicts_are_reported_at_start(tmp_path):
    app = app_with_keymap(tmp_path, '[keymap]\ncancel_turn = "ctrl+n"\n')
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        await wait_for(pilot, lambda: any("cancel_turn (Cancel turn) and new_workstream (New)" in n.message
                                          for n in app._notifications), message="the conflict is reported")


def _classes_with_bindings():
    """Every class of app.tui.screens and widgets that declares BINDINGS, found by walking the packages."""
    import importlib
    import inspect
    import pkgutil

    for package_name in ("app.tui.screens", "widgets"):
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package_name}.{info.name}")
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ == module.__name__ and "BINDINGS" in cls.__dict__:
                    yield cls


def test_every_binding_of_every_screen_and_dialog_has_an_id_named_after_its_screen():
    from textual.binding import Binding

    from app.tui.screens.main import MainScreen

    from app.tui.commands.keymap import BindingInfo, dialog_bindings

    ids: list[str] = []
    declared: set[BindingInfo] = set()
    for cls in _classes_with_bindings():
        for binding in cls.__dict__["BINDINGS"]:
            assert isinstance(binding, Binding) and binding.id, f"{cls.__name__}: {binding!r} has no id"
            assert cls is MainScreen or "." in binding.id, f"{binding.id}: a dialog's id is screen.name"
            ids.append(binding.id)
            if cls is not MainScreen:
                declared.add(BindingInfo(binding.id, binding.description,
                                         tuple(k.strip() for k in binding.key.split(","))))
    assert len(ids) == len(set(ids)), "binding ids are unique"
    assert set(dialog_bindings()) == declared  # the reading of the source matches the classes
    assert {"approval.approve", "confirm.yes", "help.close", "mcp.add", "settings.save"} <= set(ids)


def test_a_dialog_conflict_names_both_bindings_and_screens_do_not_clash_with_each_other():
    assert keymap_problems({"approval.approve": "n"}) == [
        "[keymap] n is bound twice: approval.approve (Approve) and approval.deny (Deny); change one of them in [keymap]"]
    assert keymap_problems({"confirm.yes": "ctrl+n"}) == []  # the main screen's ctrl+n is not in force there
    assert "did you mean approval.deny" in keymap_problems({"aproval.deny": "x"})[0]


def test_help_lists_each_dialogs_keys_in_force():
    from app.tui.commands.keymap import dialog_rows

    rows = dict(dialog_rows({"confirm.yes": "j"}))
    assert rows["Confirm"] == "j Yes · n/Esc No"
    assert rows["Approval"].startswith("y Approve · Y Approve all · n Deny")


async def test_a_dialogs_binding_moves_with_the_keymap_in_its_footer_and_help(tmp_path):
    from app.tui.screens.confirm import ConfirmScreen

    app = app_with_keymap(tmp_path, '[keymap]\n"confirm.yes" = "j"\n')
    answers: list[bool] = []
    async with app.run_test(size=(120, 30)) as pilot:
        await booted(pilot)
        app.push_screen(ConfirmScreen("Really?"), callback=answers.append)
        await wait_for(pilot, lambda: "j Yes" in bottom_line(app), message="the dialog's footer shows the new key")
        assert "[b]j[/b] yes" in screen_text(app)  # and so does its own hint line
        await pilot.press("y")  # the old key does nothing now (press returns once the key is handled)
        assert isinstance(app.screen, ConfirmScreen) and answers == []
        await pilot.press("j")
        await wait_for(pilot, lambda: answers, message="j answers yes")
        assert answers == [True]
        await pilot.press("f1")
        await wait_for(pilot, lambda: screen_is(app, HelpScreen), message="help opens")
        assert "j Yes · n/Esc No" in screen_text(app) and "(Esc closes)" in screen_text(app)


def test_docs_list_every_binding_id():
    from app.tui.commands.keymap import all_bindings

    text = (Path(__file__).parents[2] / "docs" / "keys.md").read_text()
    missing = [b.id for b in all_bindings() if f"`{b.id}`" not in text]
    assert not missing, f"docs/keys.md lacks {missing}"
