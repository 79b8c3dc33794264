"""An image drawn by the terminal itself (kitty graphics, sixel or iTerm2 inline; widgets/terminal_graphics.py)
in the widget's own cells, or as coloured half blocks (a browser tab, or `images = "blocks"`), with a
caption line under it.

This is the only widget that sends an image protocol's escape sequences, as control segments of its own
strips: kitty's image travels once and its cells are placeholder characters (so Textual scrolls and
crops them like text); a sixel or iTerm2 image is drawn over its blank cells when all of them are on
screen and no dialog covers the screen, the cursor saved and put back around it. Captions and every other text stay inert. Where the
terminal speaks no protocol (or the image is one it cannot draw) nothing is mounted, and the block
with name and size stays what the user sees.
"""

from __future__ import annotations

import base64
import binascii
import itertools
from typing import Any

from rich.cells import cell_len
from rich.color import Color
from rich.control import Control
from rich.segment import ControlType, Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from widgets import terminal_graphics as graphics
from app.vocabulary.inert import inert

# kitty image ids: the placeholder cells carry them as a 256-colour index (38;5;N), which survives
# Textual's colour downgrades; 16…255 skips the 16 colours a theme remaps. The 241st image reuses an id.
_IMAGE_IDS = itertools.cycle(range(16, 256))
SAVE_CURSOR, RESTORE_CURSOR = "\x1b7", "\x1b8"


def pixel_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG or GIF from its header (app/mcp/media.py reads it); None for others."""
    from app.mcp.media import Media

    return Media("image", "", base64.b64encode(data[:64]).decode()).pixels()


ITERM_MAX_BYTES = 512_000  # iTerm2's image is sent again with every repaint of its cells: kept small


def drawable(protocol: str | None, mime: str, data: bytes) -> bool:
    """Whether `protocol` can draw this image: kitty takes PNG (sent once), iTerm2 any image up to
    ITERM_MAX_BYTES, sixel and half blocks the PNGs that app/mcp/png_pixels.py decodes (no image library here)."""
    if protocol == "kitty":
        return data[:8] == b"\x89PNG\r\n\x1a\n"
    if protocol == "iterm":
        return mime.startswith("image/") and 0 < len(data) <= ITERM_MAX_BYTES
    if protocol in ("sixel", "blocks"):
        from app.mcp.png_pixels import png_pixels

        return png_pixels(data, 128, 128) is not None
    return False


def _control(text: str) -> Segment:
    return Segment(text, None, [(ControlType.CURSOR_FORWARD, 0)])


class InlineImage(Widget):
    """One image in `box` cells (columns, rows) drawn with `protocol`, then its caption."""

    DEFAULT_CSS = "InlineImage { width: auto; height: auto; margin: 0 0 1 0; }"

    def __init__(self, data: bytes, protocol: str, caption: str, box: tuple[int, int] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data = data
        self.protocol = protocol
        self.box = box or graphics.cell_box(pixel_size(data))
        self.caption = inert(caption, multiline=False)
        self.image_id = next(_IMAGE_IDS)
        self._sent = False  # kitty: the image has gone to the terminal
        self._payload: str | None = None  # sixel / iTerm2: the encoded image, made once

    def get_content_width(self, container, viewport) -> int:
        return max(self.box[0], cell_len(self.caption))

    def get_content_height(self, container, viewport, width: int) -> int:
        return self.box[1] + 1

    def payload(self) -> str:
        """The escape sequence that draws the image (sixel, iTerm2), encoded on first use."""
        if self._payload is None:
            if self.protocol == "sixel":
                from app.mcp.png_pixels import png_pixels

                self._payload = graphics.sixel(png_pixels(self.data, 128, 128) or (), self.box)
            else:
                self._payload = graphics.iterm_inline(self.data, self.box)
        return self._payload

    def _blocks(self, base: Style) -> list[list[Segment]]:
        """The image as rows of half-block cells: plain coloured text, which any terminal (and a browser
        tab) shows; transparent pixels take the transcript's own background."""
        from app.mcp.png_pixels import png_pixels

        def cell(top: graphics.Pixel, bottom: graphics.Pixel) -> Segment:
            if top is None:
                return Segment("▄", base + Style(color=Color.from_rgb(*bottom))) if bottom else Segment(" ", base)
            return Segment("▀", base + Style(color=Color.from_rgb(*top),
                                             bgcolor=Color.from_rgb(*bottom) if bottom else None))

        grid = png_pixels(self.data, 128, 128) or ((None,),)
        return [[cell(top, bottom) for top, bottom in cells] for cells in graphics.block_rows(grid, self.box)]

    def render_lines(self, crop: Region) -> list[Strip]:
        width = self.size.width or self.get_content_width(None, None)
        base = self.rich_style
        if self.protocol == "kitty":
            cell_style = base + Style(color=Color.from_ansi(self.image_id))
            rows = [[Segment("".join(cells), cell_style), Segment(" " * (width - len(cells)), base)]
                    for cells in graphics.kitty_rows(self.box)]
        elif self.protocol == "blocks":
            rows = [[*cells, Segment(" " * (width - self.box[0]), base)] for cells in self._blocks(base)]
        else:
            rows = [[Segment(" " * width, base)] for _ in range(self.box[1])]
        caption = self.caption[:width]
        rows.append([Segment(caption, base + Style(dim=True)), Segment(" " * (width - cell_len(caption)), base)])
        strips = [Strip(segments, width) for segments in rows]
        whole = crop == Region(0, 0, width, len(rows))
        if self.protocol == "kitty" and not self._sent:
            self._sent = True
            strips[0] = Strip([_control(graphics.kitty_transmit(self.data, self.image_id, self.box)),
                               *strips[0]], width)
        elif self.protocol in ("sixel", "iterm") and whole and self.is_mounted and self.screen.is_active:
            # (under a dialog the screen is drawn dimmed behind it: the image would cover the dialog)
            at = self.region
            draw = SAVE_CURSOR + Control.move_to(at.x, at.y).segment.text + self.payload() + RESTORE_CURSOR
            strips[-1] = Strip([*strips[-1], _control(draw)], width)
        if whole:
            return strips
        return [strip.crop(crop.x, crop.right) for strip in strips[crop.y:crop.bottom]]

    def on_unmount(self) -> None:
        if self.protocol == "kitty" and self._sent:
            from widgets.textual_internals import write_to_terminal

            write_to_terminal(self.app, graphics.kitty_delete(self.image_id))


def image_widget(protocol: str | None, data: bytes, mime: str, caption: str) -> InlineImage | None:
    """An InlineImage when `protocol` can draw the image, else None (the described block stays)."""
    return InlineImage(data, protocol, caption) if protocol and drawable(protocol, mime, data) else None


class MessageImages(Vertical):
    """The images sent with one user message (stored with it), drawn under its marker lines when the
    terminal speaks an image protocol; hidden otherwise."""

    DEFAULT_CSS = "MessageImages { height: auto; padding: 0 1; }"

    def __init__(self, images: list[dict]) -> None:
        super().__init__(classes="message-images")
        self.images = images

    def compose(self) -> ComposeResult:
        from app.vocabulary.attachments import human_size

        protocol = getattr(self.app, "image_protocol", None)
        for image in self.images if protocol else ():
            try:
                data = base64.b64decode(image.get("data") or "", validate=False)
            except (binascii.Error, ValueError):
                continue
            widget = image_widget(protocol, data, str(image.get("media_type") or ""),
                                  f"🖼 {image.get('name', 'image')} · {human_size(len(data))}")
            if widget is not None:
                yield widget

    def on_mount(self) -> None:
        self.display = bool(self.children)
