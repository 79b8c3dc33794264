"""The inline PNG preview's decoder: every row filter, palette and alpha, server-everything's real
image, and hostile files (lying headers, an inflate bomb, truncation) refused without work."""

from __future__ import annotations

import base64
import re
import struct
import zlib
from pathlib import Path

from app.mcp.png_pixels import png_pixels
from widgets.mcp_result import half_blocks

EVERYTHING_IMAGE = Path(__file__).parent / "node" / "node_modules" / "@modelcontextprotocol" / "server-everything" \
    / "dist" / "tools" / "get-tiny-image.js"


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def encode(rows: list[bytes], width: int, colour: int, bpp: int, filters: list[int], extra: bytes = b"",
           interlace: int = 0) -> bytes:
    """A PNG of raw `rows`, each row written with the given filter (the encoder side, to check decoding)."""
    out, previous = b"", bytes(len(rows[0]))
    for row, kind in zip(rows, filters):
        filtered = bytearray()
        for i, value in enumerate(row):
            left = row[i - bpp] if i >= bpp else 0
            up_left = previous[i - bpp] if i >= bpp else 0
            predictor = [0, left, previous[i], (left + previous[i]) >> 1, _paeth(left, previous[i], up_left)][kind]
            filtered.append((value - predictor) & 0xFF)
        out += bytes([kind]) + bytes(filtered)
        previous = row
    header = struct.pack(">IIBBBBB", width, len(rows), 8, colour, 0, 0, interlace)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra + chunk(b"IDAT", zlib.compress(out)) + \
        chunk(b"IEND", b"")


def test_each_row_filter_decodes_to_the_pixels_written():
    pixels = [[((x * 40 + y * 7) % 256, (y * 50) % 256, (x * y * 13) % 256) for x in range(6)] for y in range(5)]
    rows = [bytes(v for pixel in row for v in pixel) for row in pixels]
    png = encode(rows, 6, 2, 3, [0, 1, 2, 3, 4])
    assert png_pixels(png) == tuple(tuple(row) for row in pixels)


def test_palette_and_alpha_give_colours_and_transparency():
    palette = chunk(b"PLTE", bytes([255, 0, 0, 0, 0, 255])) + chunk(b"tRNS", bytes([255, 0]))
    png = encode([bytes([0, 1]), bytes([1, 0])], 2, 3, 1, [0, 2], extra=palette)
    assert png_pixels(png) == (((255, 0, 0), None), (None, (255, 0, 0)))
    rgba = encode([bytes([9, 8, 7, 255, 1, 2, 3, 0])], 2, 6, 4, [1])
    assert png_pixels(rgba) == (((9, 8, 7), None),)


def test_a_large_image_is_scaled_down_to_fit():
    rows = [bytes([(x + y) % 256 for x in range(100)]) for y in range(80)]
    grid = png_pixels(encode(rows, 100, 0, 1, [2] * 80), 20, 20)
    assert len(grid) == 16 and len(grid[0]) == 20 and grid[0][0] == (0, 0, 0)


def test_server_everythings_image_is_previewed_as_half_blocks():
    source = EVERYTHING_IMAGE.read_text()
    data = base64.b64decode(re.search(r'"(iVBOR[A-Za-z0-9+/=]+)"', source).group(1))
    grid = png_pixels(data)
    assert len(grid) == 20 and len(grid[0]) == 20
    shown = half_blocks(grid)
    assert shown.plain.count("\n") == 9 and set(shown.plain) <= {"▀", "▄", " ", "\n"}


def test_hostile_files_are_refused_without_work():
    rows = [bytes(3 * 4)] * 4
    good = encode(rows, 4, 2, 3, [0] * 4)
    assert png_pixels(good) is not None
    assert png_pixels(b"GIF89a" + good[6:]) is None  # not a PNG
    assert png_pixels(good[:40]) is None  # cut off before its data
    liar = good.replace(struct.pack(">II", 4, 4), struct.pack(">II", 100_000, 100_000), 1)
    assert png_pixels(liar) is None  # a header too large is refused before inflating
    bomb = encode([bytes(3 * 4)] * 4, 4, 2, 3, [0] * 4)
    bomb = bomb.replace(bomb[bomb.index(b"IDAT") - 4:bomb.index(b"IEND") - 4],
                        chunk(b"IDAT", zlib.compress(bytes(50_000_000))))
    assert png_pixels(bomb) is None  # inflates past what the header allows: stops there
    assert png_pixels(encode(rows, 4, 2, 3, [0] * 4, interlace=1)) is None  # interlaced: not taken
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    unknown_filter = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x09\x00"))
    assert png_pixels(unknown_filter) is None
