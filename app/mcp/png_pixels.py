"""A small PNG's pixels, decoded without a C library, so the inspector can show an image inline as
coloured half blocks in any colour terminal (no image protocol needed).

Only what a server's icon or thumbnail usually is: 8-bit grey, RGB, palette, grey+alpha or RGBA, not
interlaced, at most `MAX_PIXELS`. Anything else (or a broken file) gives None and the inspector shows
its described block alone. Hostile input is bounded: the inflated size is checked against the header
before any row is read.
"""

from __future__ import annotations

import struct
import zlib
from functools import lru_cache

MAX_PIXELS = 128 * 128  # decoded in pure Python on the UI thread: kept small
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
Pixel = tuple[int, int, int] | None  # None: transparent
Grid = tuple[tuple[Pixel, ...], ...]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> list[bytearray] | None:
    stride = width * bpp
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                row[i] = (row[i] + previous[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                up_left = previous[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + _paeth(left, previous[i], up_left)) & 0xFF
        elif kind != 0:
            return None
        rows.append(row)
        previous = row
    return rows


def _pixel(row: bytearray, x: int, colour: int, bpp: int, palette: bytes, alpha: bytes) -> Pixel:
    at = x * bpp
    if colour == 3:
        index = row[at]
        if index * 3 + 2 >= len(palette) or (index < len(alpha) and alpha[index] < 128):
            return None
        return palette[index * 3], palette[index * 3 + 1], palette[index * 3 + 2]
    if colour in (0, 4):
        if colour == 4 and row[at + 1] < 128:
            return None
        return row[at], row[at], row[at]
    if colour == 6 and row[at + 3] < 128:
        return None
    return row[at], row[at + 1], row[at + 2]


@lru_cache(maxsize=32)
def png_pixels(data: bytes, max_width: int = 32, max_height: int = 32) -> Grid | None:
    """The image scaled down (nearest pixel) to fit `max_width` × `max_height`, as rows of RGB (None
    where transparent); None when it is not a PNG this decoder takes."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    header, palette, alpha, idat, at = None, b"", b"", [], 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IHDR" and len(body) == 13:
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"tRNS":
            alpha = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        return None
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace or not 0 < width * height <= MAX_PIXELS:
        return None
    bpp = CHANNELS[colour]
    expected = height * (width * bpp + 1)
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(b"".join(idat), expected + 1)
    except zlib.error:
        return None
    if len(raw) != expected:
        return None
    rows = _unfilter(raw, width, height, bpp)
    if rows is None:
        return None
    scale = max(1.0, width / max_width, height / max_height)
    out_w, out_h = max(1, int(width / scale)), max(1, int(height / scale))
    return tuple(tuple(_pixel(rows[int(y * scale)], int(x * scale), colour, bpp, palette, alpha)
                       for x in range(out_w)) for y in range(out_h))
