"""Images, audio and binary blobs in what a server answered: found, described (type, size, and a PNG's
or GIF's pixel size) and saved to files, so the inspector can show a clear block and a key to save.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
import re
import shlex
import shutil
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.mcp.convert import _get, describe_bytes

EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
              "audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3", "audio/ogg": ".ogg"}


@dataclass
class Media:
    """One binary item: `kind` image/audio/blob, its MIME type and its base64 data."""

    kind: str
    mime: str
    data: str

    @property
    def size(self) -> int:
        return describe_bytes(self.data)

    def decoded(self) -> bytes:
        try:
            return base64.b64decode(self.data, validate=False)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"the {self.kind} data is not valid base64: {exc}") from None

    def pixels(self) -> tuple[int, int] | None:
        """(width, height) of a PNG or GIF, read from its header; None for other types."""
        head = base64.b64decode(self.data[:64] + "=" * (-len(self.data[:64]) % 4), validate=False) \
            if self.data else b""
        if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
            return struct.unpack(">II", head[16:24])
        if head[:4] == b"GIF8" and len(head) >= 10:
            return struct.unpack("<HH", head[6:10])
        return None

    def seconds(self) -> float | None:
        """An audio clip's length from its header (WAV: data size over byte rate); None when not known."""
        if self.kind != "audio" or not self.data:
            return None
        head = self.decoded() if len(self.data) <= 8192 else \
            base64.b64decode(self.data[:8192], validate=False)  # the chunks before the samples
        return wav_seconds(head, self.size)

    def extension(self) -> str:
        return EXTENSIONS.get(self.mime) or mimetypes.guess_extension(self.mime or "") or ".bin"


def wav_seconds(head: bytes, total_size: int) -> float | None:
    """A RIFF/WAVE file's length in seconds from its `fmt ` and `data` chunks (the data chunk's size is
    capped by what the file holds); None for anything else."""
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    at, byte_rate = 12, None
    while at + 8 <= len(head):
        kind, length = head[at:at + 4], struct.unpack("<I", head[at + 4:at + 8])[0]
        if kind == b"fmt " and at + 16 <= len(head):
            byte_rate = struct.unpack("<I", head[at + 16:at + 20])[0] if at + 20 <= len(head) else None
        elif kind == b"data":
            samples = min(length, max(0, total_size - at - 8))
            return samples / byte_rate if byte_rate else None
        at += 8 + length + (length & 1)
    return None


def describe(media: Media) -> str:
    """'image/png, 1.2 KB, 64×64 px' or 'audio/wav, 86.2 KB, 0.50 s'."""
    size = media.size
    amount = f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} KB"
    pixels = media.pixels()
    seconds = media.seconds() if media.kind == "audio" else None
    return (f"{media.mime or 'unknown type'}, {amount}" + (f", {pixels[0]}×{pixels[1]} px" if pixels else "")
            + (f", {seconds:.2f} s" if seconds is not None else ""))


def media_in(result: Any) -> list[Media]:
    """Every image, audio and blob in a tool result, prompt result or resource read, in order."""
    found: list[Media] = []

    def block(item: Any) -> None:
        kind = _get(item, "type", default="")
        if kind in ("image", "audio"):
            found.append(Media(kind, _get(item, "mime_type", "mimeType", default="") or "", _get(item, "data") or ""))
        elif kind == "resource":
            contents(_get(item, "resource"))

    def contents(item: Any) -> None:
        blob = _get(item, "blob")
        if blob:
            found.append(Media("blob", _get(item, "mime_type", "mimeType", default="") or "", blob))

    for item in _get(result, "content", default=None) or []:
        block(item)
    for message in _get(result, "messages", default=None) or []:
        content = _get(message, "content")
        for item in content if isinstance(content, list) else [content]:
            block(item)
    for item in _get(result, "contents", default=None) or []:
        contents(item)
    return found


def save_all(media: list[Media], folder: Path, stem: str) -> list[Path]:
    """Write each item to `folder/<stem>-<n><ext>` (never over an existing file); returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-") or "media"
    written = []
    for index, item in enumerate(media, 1):
        data = item.decoded()
        path, again = folder / f"{safe}-{index}{item.extension()}", 2
        while path.exists():
            path, again = folder / f"{safe}-{index}-{again}{item.extension()}", again + 1
        path.write_bytes(data)
        written.append(path)
    return written


def open_command(path: Path, env: Mapping[str, str] | None = None) -> list[str] | None:
    """The command that opens a saved file with the user's viewer: the first program of `$BROWSER`
    (`%s` stands for the file, else it goes last), else `xdg-open`; None when there is neither."""
    env = os.environ if env is None else env
    for entry in (env.get("BROWSER") or "").split(os.pathsep):
        try:
            words = shlex.split(entry)
        except ValueError:
            continue
        if words and shutil.which(words[0], path=env.get("PATH")):
            if any("%s" in word for word in words):
                return [word.replace("%s", str(path)) for word in words]
            return [*words, str(path)]
    opener = shutil.which("xdg-open", path=env.get("PATH"))
    return [opener, str(path)] if opener else None


# Players that play a file and exit, tried in order (the first on PATH plays an audio clip).
PLAYERS = (("mpv", "--no-video", "--really-quiet"), ("ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet"),
           ("paplay",), ("aplay", "-q"), ("afplay",))


def play_command(path: Path, env: Mapping[str, str] | None = None) -> list[str] | None:
    """The command that plays a saved audio clip: the first player of PLAYERS on PATH, else the user's
    viewer (`open_command`); None when there is neither."""
    env = os.environ if env is None else env
    for name, *flags in PLAYERS:
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return [found, *flags, str(path)]
    return open_command(path, env)
