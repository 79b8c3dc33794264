"""Compose the prompt in the user's editor ($VISUAL, else $EDITOR, else vi): the app is suspended
while the editor owns the terminal, and the saved text comes back into the prompt.

In a real terminal the editor runs inside Textual's `App.suspend()` (which blocks the event loop by
design: nothing may draw while the editor has the screen). A headless app (tests) has no terminal to
hand over, so the editor runs as an ordinary subprocess there.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping

FALLBACK_EDITOR = "vi"


class EditorFailed(Exception):
    """The editor could not start or did not exit cleanly: the prompt is left as it was."""


def editor_command(env: Mapping[str, str] = os.environ) -> list[str]:
    """The editor to run, split like a shell would: $VISUAL first, then $EDITOR, then vi."""
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            return shlex.split(value)
    return [FALLBACK_EDITOR]


def _returned_text(path: Path) -> str:
    """What the editor saved, without the one trailing newline editors add."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return text[:-1] if text.endswith("\n") else text


async def edit_text(app, text: str, env: Mapping[str, str] = os.environ) -> str:
    """Open `text` in the editor and return what was saved; EditorFailed says why not."""
    command = editor_command(env)
    with tempfile.TemporaryDirectory(prefix="whimbrel-prompt-") as folder:
        path = Path(folder) / "prompt.md"
        path.write_text(text + "\n" if text else "", encoding="utf-8")
        try:
            status = await _run_headless(command, path) if app.is_headless else _run_suspended(app, command, path)
        except OSError as error:
            raise EditorFailed(f"Could not start the editor {command[0]!r}: {error.strerror or error}. "
                               "Set $VISUAL or $EDITOR.") from None
        if status != 0:
            raise EditorFailed(f"The editor {command[0]!r} exited with status {status}: the prompt is unchanged.")
        return _returned_text(path)


def _run_suspended(app, command: list[str], path: Path) -> int:
    from textual.app import SuspendNotSupported

    try:
        with app.suspend():
            return subprocess.run([*command, str(path)], check=False).returncode
    except SuspendNotSupported:
        raise EditorFailed("This terminal cannot hand the screen to an editor (suspend is not supported).") from None


async def _run_headless(command: list[str], path: Path) -> int:
    process = await asyncio.create_subprocess_exec(*command, str(path), stdin=subprocess.DEVNULL,
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return await process.wait()


async def edit_prompt(app, prompt) -> None:
    """The action behind the key and the palette entry: the prompt's text round-trips the editor."""
    try:
        text = await edit_text(app, prompt.text)
    except EditorFailed as error:
        app.notify(str(error), severity="warning", timeout=8)
        return
    prompt.text = text
    prompt.move_cursor(prompt.document.end)
    prompt.focus()
