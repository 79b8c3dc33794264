"""Dialogs that name keys in their own text (sampling, elicitation, the inspector, the tab bar, the
palette) name the keys in force once [keymap] moved them, and those keys do what the text says."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from app.settings.config import load_config
from app.tui.commands.palette import whimbrel_commands
from app.tui.screens.elicitation import ElicitationScreen
from app.tui.screens.sampling import HandReply, SamplingScreen
from tests.snapshots.screen_host import ScreenHost
from tests.snapshots.test_mcp_client_screens import FORM, SAMPLING
from tests.ui.helpers import booted, make_app, screen_is, screen_text, wait_for
from tests.ui.inspector_helpers import open_inspector
from widgets.tab_bar import TabBar, TabInfo

SAMPLING_KEYS = {"sampling.approve": "a", "sampling.write_reply": "r", "sampling.deny": "x,escape",
                 "sampling.send_reply": "ctrl+e"}


class KeymapHost(ScreenHost):
    """A bare app that pushes one dialog, with a keymap in force as Whimbrel applies it."""

    def __init__(self, screen, keymap: dict[str, str]) -> None:
        super().__init__(screen, animate=False)
        self.configured_keymap = keymap
        self.set_keymap(keymap)


def hint(app) -> str:
    return str(app.screen.query_one("#request-keys").content)


async def test_the_sampling_dialog_names_the_moved_keys_and_they_work():
    app = KeymapHost(SamplingScreen(SAMPLING, "local (qwen)", "refactor"), SAMPLING_KEYS)
    async with app.run_test(size=(110, 44)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, SamplingScreen))
        assert hint(app) == ("[b]a[/] approve: the model's reply goes to the server   "
                             "[b]r[/] write the reply yourself   [b]x / Esc[/] deny")
        await pilot.press("w")  # the old key does nothing now
        assert not app.screen.writing
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen.writing, message="r opens the reply")
        # while writing, a letter is typed into the reply: only Esc is named for deny
        assert hint(app) == "[b]Ctrl+E[/] send this reply to the server   [b]Esc[/] deny"
        app.screen.query_one("#sampling-reply", TextArea).insert("Five words, by hand.")
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: app.result != "unset", message="ctrl+e sends")
    assert app.result == HandReply("Five words, by hand.")


async def test_the_sampling_dialog_without_a_model_names_the_moved_write_key():
    app = KeymapHost(SamplingScreen(SAMPLING, "", "refactor"), SAMPLING_KEYS)
    async with app.run_test(size=(110, 44)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, SamplingScreen))
        assert "write the reply by hand (r), or deny" in screen_text(app)
        assert hint(app) == "[b]r[/] write the reply yourself   [b]x / Esc[/] deny"
        await pilot.press("x")
        await wait_for(pilot, lambda: app.result is False, message="x denies")


async def test_the_elicitation_dialog_names_the_moved_keys():
    keymap = {"elicitation.accept": "ctrl+e", "elicitation.cancel": "f10"}
    app = KeymapHost(ElicitationScreen(FORM, "booking trip"), keymap)
    async with app.run_test(size=(110, 44)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, ElicitationScreen))
        assert hint(app) == "[b]Ctrl+E[/] accept   [b]Tab[/] next   [b]F10[/] cancel"
        await pilot.press("f10")
        await wait_for(pilot, lambda: app.result != "unset", message="F10 cancels")
    assert app.result.action == "cancel"


async def test_the_inspector_tab_bar_and_palette_name_the_moved_keys(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text('[keymap]\n"mcp.add" = "insert"\n"mcp.close" = "ctrl+w"\nnext_attention = "ctrl+t"\n'
                    'copy_code = "f5"\n')
    app = make_app(tmp_path, config=load_config(path))
    async with app.run_test(size=(120, 36)) as pilot:
        await booted(pilot)
        palette = {command.title: command.help for command in whimbrel_commands(app)}
        assert palette["Next needing attention"].endswith("(Ctrl+T)")
        assert palette["Copy a code block"].endswith("(F5)")
        screen = await open_inspector(pilot)
        await wait_for(pilot, lambda: "Press [b]Insert[/b] to add one" in screen_text(app), message="empty hint")
        assert "Ctrl+W closes" in str(screen.query_one("#mcp-heading").content)
        await pilot.press("ctrl+w")
        await wait_for(pilot, lambda: app.screen is not screen, message="ctrl+w closes the inspector")
        bar = app.main_screen.query_one(TabBar)
        bar.show([TabInfo("here", "idle"), TabInfo("build", "attention", pending=1)], 0)
        assert "⚑ 1 waiting · ctrl+t" in bar.render().plain
