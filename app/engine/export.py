"""A conversation as a readable Markdown transcript (`/export`).

User and assistant turns are sections; reasoning is a collapsed `<details>` block quoted
line by line; each tool call shows its arguments (pretty-printed JSON) in a code block with
its result right under it, long results cut to their head and tail. Credentials in arguments and results
are redacted (app/vocabulary/secrets.py): an export is made to be shared.
"""

from __future__ import annotations

import json
import re
from typing import Sequence

from app.vocabulary.messages import Message, ToolCall
from app.vocabulary.secrets import redact, redact_value

RESULT_MAX_LINES = 40
RESULT_MAX_CHARS = 4_000


def _fence(text: str, lang: str = "") -> str:
    """`text` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip(chr(10))}\n{ticks}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.strip().splitlines())


def truncate(text: str, max_lines: int = RESULT_MAX_LINES,
             max_chars: int = RESULT_MAX_CHARS) -> str:
    """Keep the head and tail of a long text, saying how much was left out in between."""
    lines = text.splitlines()
    if len(lines) <= max_lines and len(text) <= max_chars:
        return text
    if len(lines) > max_lines:
        head, tail = max_lines * 3 // 4, max_lines // 4
        omitted = len(lines) - head - tail
        text = "\n".join([*lines[:head], f"[… {omitted} lines omitted …]", *lines[-tail:]])
    if len(text) > max_chars:
        head, tail = max_chars * 3 // 4, max_chars // 4
        omitted = len(text) - head - tail
        text = f"{text[:head]}\n[… {omitted} characters omitted …]\n{text[-tail:]}"
    return text


def _arguments(raw: str) -> tuple[str, str]:
    """Tool-call arguments for display (credentials redacted), with the fence language."""
    try:
        return json.dumps(redact_value(json.loads(raw)), indent=2, ensure_ascii=False), "json"
    except (ValueError, TypeError):
        return redact(raw), ""


def _tool_call(call: ToolCall, result: Message | None) -> str:
    args, lang = _arguments(call.arguments or "{}")
    parts = [f"**Tool call** `{call.name}`", _fence(args, lang)]
    if result is None:
        parts.append("_No result: the turn was interrupted._")
    else:
        label = "**Error**" if result.is_error else "**Result**"
        parts += [label, _fence(redact(truncate(result.content)))]
    return "\n\n".join(parts)


def export_markdown(title: str, messages: Sequence[Message], *,
                    clears: Sequence[int] = ()) -> str:
    """A Markdown transcript of `messages` under the heading `title`.

    `clears` are indices into `messages` where /clear reset the model's context
    (`Conversation.clears`); a rule marks each one.
    """
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    shown: set[str] = set()
    out = [f"# {title.strip() or 'Whimbrel conversation'}"]
    clear_at = set(clears)
    for i, msg in enumerate(messages):
        if i in clear_at:
            out.append("---\n\n_Context cleared: the model saw nothing above this line._")
        if msg.role == "user":
            out.append(f"## User\n\n{msg.content.strip()}")
        elif msg.role == "system":
            out.append(f"## System\n\n{_quote(msg.content)}")
        elif msg.role == "assistant":
            parts = ["## Assistant"]
            if msg.reasoning.strip():
                parts.append(f"<details>\n<summary>Reasoning</summary>\n\n"
                             f"{_quote(msg.reasoning)}\n\n</details>")
            if msg.content.strip():
                parts.append(msg.content.strip())
            for call in msg.tool_calls:
                result = results.get(call.id)
                if result is not None:
                    shown.add(call.id)
                parts.append(_tool_call(call, result))
            if msg.interrupted:
                parts.append("_(interrupted)_")
            out.append("\n\n".join(parts))
        elif msg.role == "tool" and msg.tool_call_id not in shown:
            label = "Error" if msg.is_error else "Result"
            out.append(f"**{label}** of `{msg.name or 'tool'}`\n\n{_fence(redact(truncate(msg.content)))}")
    if len(messages) in clear_at:
        out.append("---\n\n_Context cleared._")
    return "\n\n".join(out) + "\n"
