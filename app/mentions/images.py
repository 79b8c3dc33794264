"""Images for a message: `/image PATH` or a pasted image path (a terminal's drag and drop pastes the
path). The image is checked (a real PNG, JPEG, GIF or WebP, at most 5 MB), refused with the reason
when the model cannot take images, and sent with the next message; the message stores it."""

from __future__ import annotations

import base64
import shlex
from pathlib import Path
from urllib.parse import unquote, urlparse

from app.vocabulary.attachments import Attachment

MAX_IMAGE_BYTES = 5_000_000
MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF87a", "image/gif"),
         (b"GIF89a", "image/gif"))
SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp"}


class ImageRefused(Exception):
    """The image cannot be attached; the message says why."""


def media_type(head: bytes) -> str | None:
    """The image type the file's first bytes show, or None."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for magic, kind in MAGIC if head.startswith(magic)), None)


def load_image(path: Path) -> dict:
    """{"name", "media_type", "size", "data" (base64)} for the image at `path`; ImageRefused says why not."""
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ImageRefused(f"{path} is not a file")
        if size > MAX_IMAGE_BYTES:
            raise ImageRefused(f"{path.name} is {size / 1e6:.1f} MB; images are sent up to 5 MB")
        data = path.read_bytes()
    except OSError as error:
        raise ImageRefused(f"cannot read {path}: {error.strerror or error}") from None
    kind = media_type(data[:16])
    if kind is None:
        raise ImageRefused(f"{path.name} is not a PNG, JPEG, GIF or WebP image")
    return {"name": path.name, "media_type": kind, "size": size, "data": base64.b64encode(data).decode()}


def marker(image: dict) -> Attachment:
    """The line the message text carries for an image (its data travels beside the text)."""
    return Attachment("image", image["name"], image["size"], image["media_type"])


def pasted_image_path(text: str, workdir: Path) -> Path | None:
    """The image file a paste names (a dropped file: quoted, backslash-escaped or file://), or None."""
    candidate = text.strip()
    if not candidate or "\n" in candidate:
        return None
    if candidate.startswith("file://"):
        candidate = unquote(urlparse(candidate).path)
    else:
        try:
            parts = shlex.split(candidate)
        except ValueError:
            return None
        if len(parts) != 1:
            return None
        candidate = parts[0]
    path = Path(candidate).expanduser()
    path = path if path.is_absolute() else workdir / path
    return path if path.suffix.lower() in SUFFIXES and path.is_file() else None


def vision_refusal(session) -> str | None:
    """Why the workstream's model cannot take an image, or None when it can."""
    from app.providers.capabilities import capabilities_for
    from app.providers.models import CLI_ALIAS

    provider = session.provider
    if provider is None:
        return "no model is configured"
    if capabilities_for(provider.settings).vision:
        return None
    name = session.model_alias or provider.settings.model
    if name == CLI_ALIAS:  # made from --model: no config entry to set, the flag says it
        return (f"the model {provider.settings.model} (from --model) does not take images (start Whimbrel "
                "with --vision as well if it does)")
    return (f"the model {name} does not take images (set capabilities = {{ vision = true }} under "
            f"[models.{name}] in config.toml if it does)")
