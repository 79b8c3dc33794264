"""Inline images (widgets/inline_image.py): the protocol comes from the environment alone; with one
forced, an attached image (stored with its message) and an image result in the inspector are drawn by
the terminal, the protocol's sequence sent only from the image widget's own cells, while outside text
around it (the file's name, the message) stays inert."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from textual.geometry import Region

from widgets import terminal_graphics as graphics
from app.settings.config import ConfigError, load_config
from app.storage.store import Store
from app.vocabulary.attachments import Attachment, with_attachments
from app.vocabulary.messages import Message
from tests.mcp.conftest import needs_node, server_path
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for
from tests.ui.inert_helpers import obeyable, rendered_by_widget
from tests.ui.inspector_helpers import EVERYTHING, tool_result
from tests.ui.test_images import png
from widgets.inline_image import InlineImage, drawable
from widgets.textual_internals import terminal_output

HOSTILE_NAME = "shot\x1b]0;PWNED\x07.png"
STARTS = {"sixel": "\x1bP0;1;0q", "iterm": "\x1b]1337;File=inline=1", "kitty": "\x1b_Ga=T,U=1,f=100"}


def test_the_protocol_comes_from_the_environment_or_the_setting_never_from_a_query(tmp_path):
    assert graphics.detect({"TERM": "xterm-kitty"}) == "kitty"
    assert graphics.detect({"TERM_PROGRAM": "ghostty"}) == "kitty"
    assert graphics.detect({"TERM_PROGRAM": "iTerm.app"}) == "iterm"
    assert graphics.detect({"TERM": "foot"}) == "sixel"
    assert graphics.detect({"TERM": "xterm-256color"}) is None
    assert graphics.detect({"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}) is None  # tmux cuts them
    assert graphics.detect({"TERM": "xterm-256color"}, "sixel") == "sixel"  # [ui] images
    assert graphics.detect({"TERM": "xterm-kitty"}, "off") is None
    assert graphics.detect({"TERM": "foot", "WHIMBREL_IMAGES": "iterm"}, "off") == "iterm"
    browser_tab = {"TERM": "xterm-256color", "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}
    assert graphics.detect(browser_tab) == "blocks"  # `whimbrel serve`: xterm.js draws colours, no protocol
    assert graphics.detect(browser_tab, "off") is None
    assert graphics.detect({"TERM": "xterm-256color", "TMUX": "x"}, "blocks") == "blocks"
    assert graphics.cell_box((20, 20)) == (8, 4)  # small images are drawn at least 8 columns wide
    assert graphics.cell_box((4000, 1000)) == (48, 6)  # large ones fit the box, keeping their shape
    assert graphics.cell_box(None) == (24, 8)
    # what each protocol can draw without an image library; anything else keeps the described block
    red = png(tmp_path / "red.png")
    assert drawable("kitty", "image/png", red) and not drawable("kitty", "image/jpeg", b"\xff\xd8\xff")
    assert drawable("iterm", "image/jpeg", b"\xff\xd8\xff") and not drawable("iterm", "image/png", b"x" * 600_000)
    assert drawable("sixel", "image/png", red) and not drawable("sixel", "image/gif", b"GIF89a")
    assert drawable("blocks", "image/png", red) and not drawable("blocks", "image/gif", b"GIF89a")
    assert not drawable(None, "image/png", red)


def test_the_images_setting_is_checked(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[ui]\nimages = "sixel"\n')
    assert load_config(path).images == "sixel"
    path.write_text('[ui]\nimages = "yes"\n')
    with pytest.raises(ConfigError, match="images"):
        load_config(path)


def stored_image_workstream(tmp_path: Path, data: bytes) -> str:
    """A workstream whose user message carries an image (with a hostile name) and hostile text."""
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    store = Store(folder / "whimbrel.db")
    ws = store.create_workstream(title="the screenshot")
    text = with_attachments("What is in this \x1b[2J screenshot?",
                            [Attachment("image", HOSTILE_NAME, len(data), "image/png")])
    image = {"name": HOSTILE_NAME, "media_type": "image/png", "size": len(data),
             "data": base64.b64encode(data).decode()}
    store.add_message(ws, Message("user", text, raw={"images": [image]}))
    store.add_message(ws, Message("assistant", "A red pixel."))
    store.close()
    return ws


@pytest.mark.parametrize("protocol", ["sixel", "iterm", "kitty"])
async def test_a_forced_protocol_draws_the_attached_image_only_from_its_widget(protocol, tmp_path, monkeypatch):
    monkeypatch.setenv("WHIMBREL_IMAGES", protocol)
    data = png(tmp_path / "red.png")
    app = make_app(tmp_path, resume=stored_image_workstream(tmp_path, data))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "A red pixel." in screen_text(app) and app.query(InlineImage))
        (image,) = app.screen.query(InlineImage)
        assert image.box == (8, 4)
        rendered = await rendered_by_widget(pilot)
        # the only widget that renders a control character is the image (kitty's sent it already)
        senders = [widget for widget, text in rendered.items() if obeyable(text)]
        assert senders == ([] if protocol == "kitty" else [image])
        shown = screen_text(app)
        assert "shot␛]0;PWNED␇.png" in shown and "What is in this ␛[2J screenshot?" in shown
        output = terminal_output(app.screen)
        if protocol == "kitty":
            # the image went to the terminal with the first frame (tests/e2e/test_inline_images.py reads
            # it from a real pty); its cells are placeholders carrying the image id as their colour,
            # so Textual scrolls and crops them as text
            placeholder = graphics.KITTY_PLACEHOLDER + graphics.DIACRITICS[0] + graphics.DIACRITICS[0]
            assert output.count(placeholder) == 1
            first_row = image.render_lines(Region(0, 0, *image.size))[0]
            assert {segment.style.color.number for segment in first_row if graphics.KITTY_PLACEHOLDER in segment.text} \
                == {image.image_id}
        else:
            assert output.count(STARTS[protocol]) == 1
        assert "\x1b]0;PWNED" not in output and "\x1b[2J" not in output
        if protocol != "kitty":  # under a dialog the dimmed screen behind it draws no image over it
            from app.tui.screens.confirm import ConfirmScreen

            app.push_screen(ConfirmScreen("Really?"))
            await wait_for(pilot, lambda: screen_is(app, ConfirmScreen))
            await pilot.pause()
            assert "Really?" in screen_text(app) and STARTS[protocol] not in terminal_output(app.screen)


async def test_in_a_browser_tab_the_attached_image_is_drawn_as_coloured_half_blocks(tmp_path, monkeypatch):
    """No image protocol reaches xterm.js: the image is text, '▀' cells in the pixels' colours, and the
    widget sends no control sequence at all."""
    monkeypatch.setenv("WHIMBREL_IMAGES", "blocks")
    data = png(tmp_path / "red.png")
    app = make_app(tmp_path, resume=stored_image_workstream(tmp_path, data))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "A red pixel." in screen_text(app) and app.query(InlineImage))
        (image,) = app.screen.query(InlineImage)
        rendered = await rendered_by_widget(pilot)
        assert not [widget for widget, text in rendered.items() if obeyable(text)]
        rows = image.render_lines(Region(0, 0, *image.size))[:image.box[1]]
        cells = [segment for row in rows for segment in row if segment.text == "▀"]
        assert len(cells) == image.box[0] * image.box[1]  # every cell of the box, red on red
        assert {(cell.style.color.triplet, cell.style.bgcolor.triplet) for cell in cells} == {((255, 0, 0), (255, 0, 0))}
        assert "shot␛]0;PWNED␇.png" in screen_text(app)
        assert all(start not in terminal_output(app.screen) for start in STARTS.values())


@needs_node
async def test_an_image_result_is_drawn_by_the_terminal_instead_of_half_blocks(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", server_path())
    monkeypatch.setenv("WHIMBREL_IMAGES", "iterm")
    app = make_app(tmp_path)
    async with app.run_test(size=(130, 45)) as pilot:
        manager, screen, tools, shown = await tool_result(pilot, EVERYTHING, "get-tiny-image", "▣ image")
        assert "▀" not in shown and "Ctrl+O" in shown  # the described block and its keys, no half blocks
        await wait_for(pilot, lambda: tools.query(InlineImage), message="the image drawn inline")
        (image,) = tools.query(InlineImage)
        tools.query_one("#tools-detail").scroll_to_widget(image, animate=False)
        await pilot.pause()
        output = terminal_output(screen)
        assert output.count(STARTS["iterm"]) == 1 and base64.b64encode(image.data).decode() in output
        await manager.stop()
