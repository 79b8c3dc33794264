"""@-mentions in a prompt: `@path` of a workspace file or folder attaches it to the message (a file
size-capped, a folder as its listing); the completion list offers matching paths as you type.

Mentions are resolved inside the workspace only: `@../x`, `@/etc/passwd` or a symlink leading out
stay plain text. Reading happens off the UI thread (`expand_mentions` runs in asyncio.to_thread).
"""

from __future__ import annotations

import re
from pathlib import Path

from app.vocabulary.attachments import Attachment, with_attachments
from app.mentions.workspace_files import FileIndex, list_workspace, with_folders

MENTION = re.compile(r"(?:(?<=\s)|^)@([^\s@]+)")
TRAILING = ".,;:!?)]}'\""
FILE_CAP = 100_000  # bytes of one attached file (the head is attached, marked truncated)
FOLDER_CAP = 500  # entries of one attached folder listing


def mentioned_paths(text: str) -> list[str]:
    """The `@word`s of `text`, in order, without duplicates (trailing punctuation kept for now)."""
    seen: list[str] = []
    for match in MENTION.finditer(text):
        if match.group(1) not in seen:
            seen.append(match.group(1))
    return seen


def _inside(root: Path, relative: str) -> Path | None:
    """`relative` resolved inside the workspace `root`, or None when it leads out or does not exist."""
    candidate = (root / relative).resolve()
    if not candidate.is_relative_to(root) or not candidate.exists():
        return None
    return candidate


def _attachment(root: Path, word: str) -> Attachment | None:
    """The attachment `@word` stands for, trying it without trailing punctuation too."""
    for relative in dict.fromkeys((word, word.rstrip(TRAILING))):
        if relative.startswith("/") or not relative:
            continue
        path = _inside(root, relative)
        if path is None:
            continue
        if path.is_dir():
            return _folder(root, path)
        if path.is_file():
            return _file(root, path)
    return None


def _file(root: Path, path: Path) -> Attachment | None:
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(FILE_CAP)
    if b"\0" in head[:8192]:
        body = "(binary file: not attached)"
    else:
        body = head.decode("utf-8", errors="replace")
    return Attachment("file", path.relative_to(root).as_posix(), size, body, truncated=size > FILE_CAP)


def _folder(root: Path, path: Path) -> Attachment:
    relative = path.relative_to(root).as_posix()
    prefix = "" if relative == "." else relative + "/"
    entries = sorted({entry[len(prefix):].split("/")[0] + ("/" if "/" in entry[len(prefix):] else "")
                      for entry in list_workspace(root) if entry.startswith(prefix)})
    return Attachment("folder", prefix or "./", len(entries), "\n".join(entries[:FOLDER_CAP]),
                      truncated=len(entries) > FOLDER_CAP)


def expand_mentions(text: str, workspace: Path) -> str:
    """The message to send: `text` with every mentioned workspace file or folder attached."""
    return with_attachments(text, file_attachments(text, workspace))


def file_attachments(text: str, workspace: Path) -> list[Attachment]:
    """The workspace files and folders `text` mentions (blocking: call it off the UI thread)."""
    root = workspace.resolve()
    attachments = []
    for word in mentioned_paths(text):
        try:
            attachment = _attachment(root, word)
        except OSError:
            attachment = None  # unreadable: the mention stays plain text
        if attachment is not None:
            attachments.append(attachment)
    return attachments


def mention_at_end(text: str) -> str | None:
    """The partial `@word` being typed at the end of `text` (without the @), or None."""
    match = re.search(r"(?:(?<=\s)|^)@([^\s@]*)$", text)
    return match.group(1) if match else None


class MentionIndex:
    """The workspace's paths, listed once on first use (in a thread) and matched per keystroke."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.index: FileIndex | None = None

    def build(self) -> FileIndex:
        """List the workspace (blocking: call it off the UI thread)."""
        self.index = FileIndex(with_folders(list_workspace(self.workspace)))
        return self.index
