"""Snapshots of the daily-driver screens: the theme picker (previewing a light theme), the settings
screen, the @ completion list, a message with an attached file and an image, setup with nothing found,
and the code block picker. Baselines in snapshots/test_daily_screens/."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from app.settings.config import load_config
from app.tui.comforts.copying import CodeBlock
from app.tui.screens.code_picker import CodePickerScreen
from app.tui.screens.settings import SettingsScreen
from app.tui.screens.setup import SetupScreen
from app.tui.screens.theme_picker import ThemePickerScreen
from app.storage.store import Store
from app.vocabulary.attachments import Attachment, with_attachments
from app.vocabulary.messages import Message
from tests.snapshots.screen_host import ScreenHost
from tests.ui.helpers import make_app, screen_is, wait_for
from widgets.mention_suggestions import MentionSuggestions
from widgets.prompt import PromptInput

SIZE = (110, 34)
CONFIG = """\
# my settings
[ui]
bell = false

[models.local]
base_url = "http://127.0.0.1:8000/v1"
model = "qwen2.5-coder"

[model]
default = "local"

[keymap]
new_workstream = "ctrl+t"
"""


async def steady(pilot) -> None:
    await wait_for(pilot, lambda: pilot.app.ready.is_set(), message="boot")
    for widget in pilot.app.screen.query(PromptInput):
        widget.cursor_blink = False
    await pilot.pause(0.2)


def no_blink(app) -> None:
    for widget in app.screen.query(Input):
        widget.cursor_blink = False


def test_theme_picker_previewing_a_light_theme(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await steady(pilot)
        pilot.app.action_change_theme()
        from textual.widgets import OptionList

        await wait_for(pilot, lambda: screen_is(pilot.app, ThemePickerScreen)
                       and pilot.app.screen.query(OptionList))

        pilot.app.screen.query_one(OptionList).highlighted = 1  # whimbrel-light, applied at once
        await wait_for(pilot, lambda: pilot.app.theme == "whimbrel-light")
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_settings_screen(snap_compare, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    app = make_app(tmp_path, config=load_config(path))
    app.options.config_path = Path("/home/user/.config/whimbrel/config.toml")

    async def run_before(pilot) -> None:
        await steady(pilot)
        await pilot.app.daily.open_settings()
        await wait_for(pilot, lambda: screen_is(pilot.app, SettingsScreen))
        no_blink(pilot.app)
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(110, 44), run_before=run_before)


def test_mention_completion_list(snap_compare, tmp_path):
    workspace = tmp_path / "ws"
    for name in ("src/main.py", "src/manifest.json", "src/util/maths.py", "docs/manual.md", "README.md"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("x\n")

    async def run_before(pilot) -> None:
        await steady(pilot)
        await pilot.press(*"explain @src/ma")
        view = pilot.app.main_screen.view_for(pilot.app.focused_id)
        await wait_for(pilot, lambda: view.query_one(MentionSuggestions).matches[:1] == ["src/main.py"])
        await pilot.pause(0.3)

    workspace.mkdir(exist_ok=True)
    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_attached_file_and_image_block(snap_compare, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    store = Store(data / "whimbrel.db")
    ws = store.create_workstream(title="what does main do")
    text = with_attachments("What does @src/main.py do with this screenshot?", [
        Attachment("file", "src/main.py", 1834, "def main(): ..."),
        Attachment("folder", "src/", 4, "main.py\nutil.py\nmaths.py\n__init__.py"),
        Attachment("image", "screenshot.png", 48_213, "image/png")])
    store.add_message(ws, Message("user", text, raw={"images": [{"name": "screenshot.png", "media_type": "image/png",
                                                                 "size": 48_213, "data": "AAAA"}]}))
    store.add_message(ws, Message("assistant", "It parses the arguments and starts the app."))
    store.close()
    app = make_app(tmp_path, resume=ws)
    assert snap_compare(app, terminal_size=SIZE, run_before=steady)


async def nothing_found() -> list:
    return []


def test_setup_with_nothing_found_shows_only_the_hint(snap_compare):
    screen = SetupScreen(Path("/home/user/.config/whimbrel/config.toml"), env={}, probe=nothing_found)

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: not screen.probing)
        await pilot.pause(0.2)

    assert snap_compare(ScreenHost(screen), terminal_size=SIZE, run_before=run_before)


def test_code_block_picker(snap_compare):
    blocks = [CodeBlock("python", "def add(a, b):\n    return a + b"), CodeBlock("bash", "pytest -q"),
              CodeBlock("", "plain text block")]
    assert snap_compare(ScreenHost(CodePickerScreen(blocks)), terminal_size=(110, 20))
