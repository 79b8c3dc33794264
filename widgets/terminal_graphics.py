"""Images drawn by the terminal itself: which protocol it speaks (kitty graphics, sixel, iTerm2 inline),
decided from the environment and `[ui] images` alone (no query to the terminal, so startup never
waits on an answer), and the escape sequences that draw an image with each protocol.

Only widgets/inline_image.py sends these sequences, inside its own cells; every other text on screen
stays inert (widgets/terminal_guard.py), so nothing a model or server writes can draw or move anything.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence

PROTOCOLS = ("kitty", "sixel", "iterm", "blocks")  # blocks: coloured half blocks, text any terminal shows
SETTINGS = ("auto", "off", *PROTOCOLS)
CELL_PIXELS = (10, 20)  # a typical cell, width × height (the terminal is never asked)
MAX_BOX = (48, 16)  # the largest block an image takes in the transcript or the inspector, in cells
MIN_COLUMNS = 8
SIXEL_TERMINALS = ("foot", "mlterm", "contour", "yaft", "mintty")
KITTY_PLACEHOLDER = "\U0010eeee"
# The kitty protocol's row/column diacritics (rowcolumn-diacritics.txt), the first 48 of them.
DIACRITICS = [chr(c) for c in (
    0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A, 0x034B, 0x034C,
    0x0350, 0x0351, 0x0352, 0x0357, 0x035B, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369,
    0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F, 0x0483, 0x0484, 0x0485, 0x0486, 0x0487, 0x0592,
    0x0593, 0x0594, 0x0595, 0x0597, 0x0598, 0x0599, 0x059C, 0x059D, 0x059E, 0x059F, 0x05A0, 0x05A1)]
APC_CHUNK = 4096


def detect(env: Mapping[str, str], setting: str = "auto") -> str | None:
    """The protocol to draw images with: `setting` (or $WHIMBREL_IMAGES) when it names one, None for
    "off", else what the environment shows (kitty and Ghostty: kitty; iTerm2, WezTerm: iTerm2 inline;
    foot, mlterm…: sixel; a browser tab: half blocks). Inside tmux or screen, auto draws nothing: they
    would cut the sequences ("blocks" can be chosen there: they are plain coloured text)."""
    chosen = (env.get("WHIMBREL_IMAGES") or setting or "auto").strip().lower()
    if chosen in PROTOCOLS:
        return chosen
    if chosen != "auto":
        return None
    if "web_driver" in env.get("TEXTUAL_DRIVER", ""):  # a browser tab (`whimbrel serve`): xterm.js draws colours
        return "blocks"
    if env.get("TMUX") or env.get("TERM", "").startswith("screen"):
        return None
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "")
    if env.get("KITTY_WINDOW_ID") or term == "xterm-kitty" or program == "ghostty" or term == "xterm-ghostty":
        return "kitty"
    if program in ("iTerm.app", "WezTerm"):
        return "iterm"
    if any(name in term for name in SIXEL_TERMINALS):
        return "sixel"
    return None


def cell_box(pixels: tuple[int, int] | None, max_box: tuple[int, int] = MAX_BOX) -> tuple[int, int]:
    """(columns, rows) an image of `pixels` takes: its size in cells, at least MIN_COLUMNS wide, at
    most `max_box`, keeping its shape; a size not known takes a quarter of the largest box."""
    max_cols, max_rows = max_box
    if not pixels or pixels[0] <= 0 or pixels[1] <= 0:
        return max(1, max_cols // 2), max(1, max_rows // 2)
    width, height = pixels[0] / CELL_PIXELS[0], pixels[1] / CELL_PIXELS[1]
    scale = max(MIN_COLUMNS / width, 1.0) if width < MIN_COLUMNS else 1.0
    scale = min(scale, max_cols / width, max_rows / height) if width * scale > max_cols or \
        height * scale > max_rows else scale
    return max(1, min(max_cols, math.ceil(width * scale))), max(1, min(max_rows, math.ceil(height * scale)))


def kitty_transmit(png: bytes, image_id: int, box: tuple[int, int]) -> str:
    """Send a PNG to a kitty-protocol terminal and make a virtual placement of `box` cells for it, shown
    where the placeholder cells of `kitty_rows` are (so Textual scrolls and crops it like text)."""
    data = base64.b64encode(png).decode()
    chunks = [data[at:at + APC_CHUNK] for at in range(0, len(data), APC_CHUNK)] or [""]
    head = f"a=T,U=1,f=100,q=2,i={image_id},c={box[0]},r={box[1]}"
    parts = []
    for index, chunk in enumerate(chunks):
        more = 1 if index < len(chunks) - 1 else 0
        keys = f"{head},m={more}" if index == 0 else f"m={more}"
        parts.append(f"\x1b_G{keys};{chunk}\x1b\\")
    return "".join(parts)


def kitty_delete(image_id: int) -> str:
    """Free an image the terminal holds (its placements go with it)."""
    return f"\x1b_Ga=d,d=I,q=2,i={image_id}\x1b\\"


def kitty_rows(box: tuple[int, int]) -> list[list[str]]:
    """The placeholder cells of each row: the placeholder with its row's and column's diacritics (the
    image id travels in the cells' foreground colour)."""
    columns, rows = min(box[0], len(DIACRITICS)), min(box[1], len(DIACRITICS))
    return [[KITTY_PLACEHOLDER + DIACRITICS[row] + DIACRITICS[column] for column in range(columns)]
            for row in range(rows)]


def iterm_inline(data: bytes, box: tuple[int, int]) -> str:
    """iTerm2's inline image (OSC 1337), any format the terminal decodes, filling `box` cells."""
    encoded = base64.b64encode(data).decode()
    return (f"\x1b]1337;File=inline=1;size={len(data)};width={box[0]};height={box[1]};"
            f"preserveAspectRatio=1:{encoded}\x07")


Pixel = tuple[int, int, int] | None


def _scaled(grid: Sequence[Sequence[Pixel]], width: int, height: int) -> list[list[Pixel]]:
    rows, columns = len(grid), len(grid[0])
    return [[grid[y * rows // height][x * columns // width] for x in range(width)] for y in range(height)]


def block_rows(grid: Sequence[Sequence[Pixel]], box: tuple[int, int]) -> list[list[tuple[Pixel, Pixel]]]:
    """Rows of RGB pixels scaled to fill `box` cells, each cell the (top, bottom) pixels a half block
    ('▀' in the top one's colour on the bottom one's) shows."""
    columns, rows = box
    scaled = _scaled(grid, columns, rows * 2)
    return [list(zip(scaled[2 * row], scaled[2 * row + 1])) for row in range(rows)]


def sixel(grid: Sequence[Sequence[Pixel]], box: tuple[int, int]) -> str:
    """Rows of RGB pixels (None: transparent), scaled to fill `box` cells, as one sixel image with up
    to 216 colours (a 6×6×6 cube)."""
    if not grid or not grid[0]:
        return ""
    width, height = box[0] * CELL_PIXELS[0], box[1] * CELL_PIXELS[1]
    pixels = _scaled(grid, width, height)

    def level(value: int) -> int:
        return min(5, (value * 6) // 256)

    indexes = [[None if p is None else level(p[0]) * 36 + level(p[1]) * 6 + level(p[2]) for p in row]
               for row in pixels]
    used = sorted({i for row in indexes for i in row if i is not None})
    out = [f'\x1bP0;1;0q"1;1;{width};{height}']
    for colour in used:
        red, green, blue = colour // 36, colour // 6 % 6, colour % 6
        out.append(f"#{colour};2;{red * 20};{green * 20};{blue * 20}")
    for top in range(0, height, 6):
        bits: dict[int, bytearray] = {}
        for bit, row in enumerate(indexes[top:top + 6]):
            for x, colour in enumerate(row):
                if colour is not None:
                    bits.setdefault(colour, bytearray(width))[x] |= 1 << bit
        for number, colour in enumerate(sorted(bits)):
            out.append(f"#{colour}" + _run_length([chr(63 + b) for b in bits[colour]]))
            out.append("$" if number < len(bits) - 1 else "")
        out.append("-")
    out.append("\x1b\\")
    return "".join(out)


def _run_length(characters: list[str]) -> str:
    out, at = [], 0
    while at < len(characters):
        end = at
        while end < len(characters) and characters[end] == characters[at]:
            end += 1
        count = end - at
        out.append(f"!{count}{characters[at]}" if count > 3 else characters[at] * count)
        at = end
    return "".join(out)
