"""`--input-format stream-json`: user turns on stdin, one JSON line each, as Claude Code's stream-json input.

A line is `{"type": "user", "message": {"role": "user", "content": TEXT or [{"type": "text", "text": …}, …]}}`;
blank lines are skipped. Only text content is taken: anything else is refused in words, never guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


class TurnProblem(ValueError):
    """A line on stdin that is not a user turn Whimbrel can take; the message says what is wrong."""


def parse_turn(line: str) -> str:
    """The prompt text of one user-turn line."""
    try:
        data = json.loads(line)
    except ValueError as error:
        raise TurnProblem(f"a stdin line is not JSON ({error})") from None
    if not isinstance(data, dict) or data.get("type") != "user":
        raise TurnProblem('a stdin line must be {"type": "user", "message": {...}}')
    message = data.get("message")
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        raise TurnProblem('a user turn needs "message": {"role": "user", "content": ...}')
    return _text(message.get("content"))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        raise TurnProblem("a user turn's content is a string or a list of text blocks")
    parts = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            kind = block.get("type") if isinstance(block, dict) else type(block).__name__
            raise TurnProblem(f"only text content is taken from stdin, not {str(kind)[:40]!r}")
        parts.append(block["text"])
    return "\n".join(parts)


def next_turn(readline: Callable[[], str]) -> str | None:
    """The next user turn's text from `readline`, skipping blank lines; None at the end of input."""
    while True:
        line = readline()
        if not line:
            return None
        if line.strip():
            return parse_turn(line)
