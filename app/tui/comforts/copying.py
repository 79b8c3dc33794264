"""Copy the last reply, or one of its code blocks, to the clipboard through OSC 52 (Textual's
`copy_to_clipboard`), which reaches the local clipboard over SSH and through tmux as well."""

from __future__ import annotations

import re

from app.tui.screens.code_picker import CodeBlock, CodePickerScreen

FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[`~]*[ \t]*$",
                   re.MULTILINE | re.DOTALL)


def code_blocks(markdown: str) -> list[CodeBlock]:
    """Every fenced code block of `markdown`, in order."""
    return [CodeBlock(m.group("lang").strip().split(" ")[0], m.group("body").rstrip("\n"))
            for m in FENCE.finditer(markdown)]


def last_reply(messages) -> str | None:
    """The text of the newest assistant message that has any, or None."""
    for message in reversed(messages):
        if message.role == "assistant" and message.content.strip():
            return message.content
    return None


def copy_last_reply(app) -> None:
    """The focused workstream's last reply, as Markdown, to the clipboard."""
    reply = _reply(app)
    if reply is not None:
        app.copy_to_clipboard(reply)
        app.notify(f"Copied the last reply ({len(reply)} characters).")


def copy_code_block(app) -> None:
    """The last reply's code block to the clipboard; a picker when it has several."""
    reply = _reply(app)
    if reply is None:
        return
    blocks = code_blocks(reply)
    if not blocks:
        app.notify("The last reply has no code block.", severity="warning")
    elif len(blocks) == 1:
        _copy_block(app, blocks[0])
    else:
        app.push_screen(CodePickerScreen(blocks), callback=lambda block: block and _copy_block(app, block))


def _copy_block(app, block: CodeBlock) -> None:
    app.copy_to_clipboard(block.text)
    count = len(block.text.splitlines())
    app.notify(f"Copied the {block.language or 'code'} block ({count} line{'' if count == 1 else 's'}).")


def _reply(app) -> str | None:
    workstream = app.workstream
    reply = last_reply(workstream.session.messages) if workstream is not None else None
    if reply is None:
        app.notify("No reply to copy yet.", severity="warning")
    return reply
