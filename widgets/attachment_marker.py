"""How a user message with attachments is shown: what was typed, then one marker line per attached
file or folder ("📎 src/main.py · 1.2 kB"), never the attached text itself."""

from __future__ import annotations

from rich.text import Text

from app.vocabulary.attachments import Attachment, human_size, split_attachments
from app.vocabulary.inert import inert


def marker(attachment: Attachment) -> Text:
    """One attachment as a line: icon, path, size (entries of a folder), truncation."""
    line = Text({"file": "📎 ", "image": "🖼 "}.get(attachment.kind, "🗀 "), style="bold")
    line.append(inert(attachment.path, multiline=False), style="bold")
    if attachment.kind == "image":
        line.append(f" · {human_size(attachment.size)} · {inert(attachment.body, multiline=False)}", style="dim")
    elif attachment.kind == "file":
        line.append(f" · {human_size(attachment.size)}", style="dim")
        if attachment.truncated:
            line.append(" · first 100 kB attached", style="dim")
    else:
        line.append(f" · folder listing, {attachment.size} entries", style="dim")
    return line


def user_message_body(text: str) -> str | Text:
    """The text to show for a user message: unchanged, or the typed part and attachment markers."""
    typed, attachments = split_attachments(text)
    if not attachments:
        return text
    body = Text(typed)
    for attachment in attachments:
        body.append("\n")
        body.append_text(marker(attachment))
    return body
