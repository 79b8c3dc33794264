"""Inline images in a real terminal: with kitty's protocol forced, resuming a workstream whose message
carries an image sends the PNG once (an APC `_G` sequence) and draws its cells as placeholders that
name the image by colour; the image's hostile file name reaches the terminal inert."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

from widgets import terminal_graphics as graphics
from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.test_acceptance import whimbrel_argv
from tests.ui.test_images import png
from tests.ui.test_inline_images import stored_image_workstream

pytestmark = e2e_marks()


def test_kitty_gets_the_image_once_and_placeholder_cells(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    data = png(tmp_path / "red.png")
    ws = stored_image_workstream(tmp_path, data)
    env = dict(os.environ, WHIMBREL_IMAGES="kitty")
    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, "--resume", ws), env=env) as app:
        app.wait_for("A red pixel.", timeout=60)  # the resumed workstream: boot is done
        sent = "\x1b_Ga=T,U=1,f=100,q=2,i="
        app.wait_until(lambda: sent in app.output, timeout=30, what="the image sent with kitty's protocol")
        start = app.output.index(sent)
        image_id = int(app.output[start + len(sent):].split(",", 1)[0])
        assert base64.b64encode(data).decode() in app.output[start:start + 400]
        placeholder = graphics.KITTY_PLACEHOLDER + graphics.DIACRITICS[0] + graphics.DIACRITICS[0]
        app.wait_until(lambda: placeholder in app.output, timeout=30, what="the placeholder cells")
        colour = re.search(r"\x1b\[38;5;(\d+)[;m][^\x1b]*$", app.output[:app.output.index(placeholder)])
        assert colour and int(colour.group(1)) == image_id  # the cells' colour names the image
        assert app.output.count(sent) == 1  # sent once, however often the screen repaints
        assert "\x1b]0;PWNED" not in app.output and "shot␛]0;PWNED␇.png" in app.output
        app.send("\x11")
        assert app.wait_exit(timeout=30) == 0
