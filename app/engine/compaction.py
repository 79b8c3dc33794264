"""Compaction: replace older context with a structured summary written by the model.

The full history stays in storage; only what the model sees shrinks. The summary keeps
decisions, files touched, exact identifiers and paths, important tool results, open tasks
and the user's preferences. After compaction files must be re-read before they are edited
(the session clears `read_paths`), because the model no longer sees their contents.
"""

from __future__ import annotations

from app.vocabulary.messages import Message

SUMMARY_MARKER = "[Summary of the earlier conversation — older messages were compacted]"
TOOL_RESULT_LIMIT = 2_000
ARGUMENT_LIMIT = 1_000

SUMMARY_INSTRUCTIONS = """\
You are compacting a coding agent's conversation so it can continue with a shorter context.
Write a faithful summary of the transcript below in Markdown with exactly these sections:

## Goal
What the user wants overall, in their words where possible.
## Decisions
Decisions made and why, including rejected approaches.
## Files touched
Every file path read, created or modified, with what changed (exact paths).
## Identifiers
Exact names of functions, classes, variables, commands, URLs, error messages, ids and versions
that matter. Copy them verbatim; never paraphrase an identifier.
## Important tool results
Key outputs (test results, errors, findings) that later work depends on.
## Open tasks
What remains to be done, in order, and the next step.
## User preferences
Style, constraints and instructions the user gave.

Be concise but never drop a path, identifier or open task. Do not invent anything.\
"""


def should_compact(prompt_tokens: int, context_window: int | None, pct: float) -> bool:
    """True when the prompt has passed `pct` percent of the context window."""
    if not context_window or pct <= 0:
        return False
    return prompt_tokens >= context_window * pct / 100.0


def split_index(messages: list[Message]) -> int:
    """Where the kept tail starts: the last user prompt, else the last assistant turn.

    0 means there is nothing worth compacting. The tail never starts with a tool result,
    so calls and their results stay together.
    """
    users = [i for i, m in enumerate(messages) if m.role == "user" and not is_summary(m)]
    if users and users[-1] > 0 and not (users[-1] == 1 and is_summary(messages[0])):
        return users[-1]
    assistants = [i for i, m in enumerate(messages) if m.role == "assistant"]
    candidates = [i for i in assistants if i >= 2]
    return candidates[-1] if candidates else 0


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… [{len(text) - limit} characters omitted] …\n{text[-half:]}"


def render_transcript(messages: list[Message]) -> str:
    """The messages as plain text for the summarizer; long tool output is clipped."""
    lines: list[str] = []
    for msg in messages:
        if msg.role == "system":
            continue
        if msg.role == "user":
            lines.append(f"USER:\n{msg.content}")
        elif msg.role == "assistant":
            if msg.content:
                lines.append(f"ASSISTANT:\n{msg.content}")
            for call in msg.tool_calls:
                lines.append(f"TOOL CALL {call.name} {_clip(call.arguments, ARGUMENT_LIMIT)}")
        elif msg.role == "tool":
            status = " (error)" if msg.is_error else ""
            lines.append(f"TOOL RESULT {msg.name or ''}{status}:\n{_clip(msg.content, TOOL_RESULT_LIMIT)}")
    return "\n\n".join(lines)


def summary_request(messages: list[Message], focus: str | None = None) -> list[Message]:
    """The messages to send to the model to get the summary."""
    ask = "Summarize this transcript."
    if focus and focus.strip():
        ask += f" Pay particular attention to: {focus.strip()}"
    return [Message(role="system", content=SUMMARY_INSTRUCTIONS),
            Message(role="user", content=f"{ask}\n\n<transcript>\n{render_transcript(messages)}\n"
                                         "</transcript>")]


def summary_message(summary: str) -> Message:
    """The message that stands for the compacted part of the conversation."""
    return Message(role="user", content=f"{SUMMARY_MARKER}\n\n{summary.strip()}\n\n"
                                        "Files must be read again before they are edited.")


def is_summary(message: Message) -> bool:
    return message.role == "user" and message.content.startswith(SUMMARY_MARKER)


def apply_compaction(messages: list[Message], summary: str, last_message_id: int) -> list[Message]:
    """The model's context on resume: the summary, then the messages stored after it."""
    tail = [m for m in messages if m.db_id is not None and m.db_id > last_message_id]
    return [summary_message(summary), *tail]
