"""Files and folders attached to a user message (@-mentions): how they are written into the message
text the model reads and stored, and how a display finds them again to show a marker instead.

    <attached-file path="src/main.py" bytes="1234">
    …the file…
    </attached-file>
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r'^<attached-(file|folder|image) path="([^"\n]*)" bytes="(\d+)"( truncated="true")?>\n',
                     re.MULTILINE)


@dataclass(frozen=True)
class Attachment:
    """One attached file or folder listing, as the message carries it."""

    kind: str  # "file", "folder" or "image" (body: its media type; the data travels in Message.raw)
    path: str
    size: int  # bytes of the file (entries of a folder)
    body: str
    truncated: bool = False

    def block(self) -> str:
        flag = ' truncated="true"' if self.truncated else ""
        return (f'<attached-{self.kind} path="{self.path}" bytes="{self.size}"{flag}>\n'
                f"{self.body.rstrip(chr(10))}\n</attached-{self.kind}>")


def with_attachments(text: str, attachments: list[Attachment]) -> str:
    """The message text the model gets: what the user typed, then each attachment."""
    return "\n\n".join([text, *(a.block() for a in attachments)]) if attachments else text


def split_attachments(text: str) -> tuple[str, list[Attachment]]:
    """The typed text and the attachments of a message built by `with_attachments`."""
    headers = list(_HEADER.finditer(text))
    if not headers:
        return text, []
    found = []
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        kind, path, size, truncated = header.groups()
        segment = text[header.end():end]
        closing = segment.rfind(f"</attached-{kind}>")
        body = segment[:closing] if closing >= 0 else segment
        found.append(Attachment(kind, path, int(size), body.rstrip("\n"), bool(truncated)))
    return text[:headers[0].start()].rstrip("\n"), found


def human_size(size: int) -> str:
    """1234 as "1.2 kB"; sizes for markers."""
    for unit, scale in (("MB", 1_000_000), ("kB", 1_000)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"
