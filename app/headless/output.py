"""Where a headless run's events go: stdout in the chosen format, progress on stderr if it is a terminal.

stdout carries only the output format (text, one JSON object, or JSON lines), so a script can parse it;
reasons for a refusal or a failure always go to stderr. Outside text printed as text is made inert;
JSON escapes every control character itself (ensure_ascii).
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from app.headless.exit_codes import MEANING, REFUSED, SUCCESS
from app.headless.wire import Wire
from app.vocabulary.inert import inert

FORMATS = ("text", "json", "stream-json")


def failure_result(code: int, reason: str) -> Wire:
    """The `result` of a run that ended before it began (`--output json`): no workstream, no calls."""
    return {"type": "result", "workstream_id": "", "name": None, "outcome": "error", "exit_code": code,
            "reason": reason, "text": "", "tool_calls": [],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "model_requests": 0}, "cost": None, "refusals": []}


def error_line(code: int, reason: str) -> Wire:
    """The one `error` event of `--output stream-json` for a run that could not start (no workstream)."""
    return {"type": "error", "workstream_id": None, "exit_code": code, "reason": reason}


def usage_failure(fmt: str | None, message: str, code: int, *, stdout: TextIO | None = None,
                  stderr: TextIO | None = None) -> int:
    """A usage error before the run began: the words on stderr and, in a JSON format, one JSON line on stdout
    (a `result` for json, an `error` event for stream-json), so a script reading stdout learns of it too."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    _line(stderr, f"whimbrel run: {message}\n")
    if fmt == "json":
        _line(stdout, json.dumps(failure_result(code, message)) + "\n")
    elif fmt == "stream-json":
        _line(stdout, json.dumps(error_line(code, message)) + "\n")
    return code


def _line(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (BrokenPipeError, ValueError):  # the reader went away (`| head`): nothing left to tell
        pass


class Output:
    """Base sink: `event` for each wire event, `finish` with the closing summary."""

    def __init__(self, stdout: TextIO, stderr: TextIO, *, progress: bool) -> None:
        self.stdout, self.stderr, self.progress = stdout, stderr, progress

    def event(self, wire: Wire) -> None:
        self._progress(wire)
        if wire["type"] == "approval" and wire["decision"] == "refused":
            _line(self.stderr, inert(f"whimbrel: refused {wire['name']}: {wire['reason']}", multiline=False) + "\n")
        elif wire["type"] == "notice" and wire["level"] in ("warning", "error"):
            _line(self.stderr, inert(f"whimbrel: {wire['text']}", multiline=False) + "\n")

    def fail(self, code: int, reason: str) -> None:
        """The run could not start (unknown --resume, the store would not open): no events came before."""
        self.finish(failure_result(code, reason))

    def finish(self, summary: Wire) -> None:
        code = summary["exit_code"]
        if code == REFUSED:  # each refusal and its reason was printed as it happened
            _line(self.stderr, f"whimbrel: exit {code}: {len(summary['refusals'])} tool call(s) refused by policy\n")
        elif code != SUCCESS and summary["reason"]:
            _line(self.stderr, inert(f"whimbrel: exit {code}, {MEANING[code]}: {summary['reason']}",
                                     multiline=False) + "\n")
        if self.progress and summary["workstream_id"]:
            _line(self.stderr, f"Resume with: whimbrel --resume {summary['workstream_id'][:8]}\n")

    def _progress(self, wire: Wire) -> None:
        """One stderr line per tool call and result, for a person watching the terminal."""
        if not self.progress:
            return
        kind = wire["type"]
        nested = "  " if wire.get("parent_call_id") else ""  # a run_code program's call, under its card
        if kind == "tool_call":
            _line(self.stderr, nested + inert(f"→ {wire['name']} {wire['preview']}", multiline=False)[:200] + "\n")
        elif kind == "tool_result":
            mark = "✗" if wire["is_error"] else "✓"
            _line(self.stderr, nested + inert(f"{mark} {wire['name']}", multiline=False) + "\n")


class TextOutput(Output):
    """The reply's text, streamed as it comes."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._ends_with_newline = True

    def event(self, wire: Wire) -> None:
        super().event(wire)
        if wire["type"] == "text_delta" and wire["text"]:
            _line(self.stdout, inert(wire["text"]))
            self._ends_with_newline = wire["text"].endswith("\n")
        elif wire["type"] == "assistant_message" and not self._ends_with_newline:
            _line(self.stdout, "\n")
            self._ends_with_newline = True


class JsonOutput(Output):
    """One JSON object at the end: final text, tool calls, usage, cost, workstream id."""

    def finish(self, summary: Wire) -> None:
        _line(self.stdout, json.dumps(summary) + "\n")
        super().finish(summary)


class StreamJsonOutput(Output):
    """One JSON event per line, flushed at once; `turn_end` closes the stream."""

    def event(self, wire: Wire) -> None:
        super().event(wire)
        _line(self.stdout, json.dumps(wire) + "\n")

    def fail(self, code: int, reason: str) -> None:
        _line(self.stdout, json.dumps(error_line(code, reason)) + "\n")
        Output.finish(self, failure_result(code, reason))

    def finish(self, summary: Wire) -> None:
        closing = {key: summary[key] for key in ("workstream_id", "outcome", "exit_code", "reason", "usage",
                                                 "cost")}
        _line(self.stdout, json.dumps({"type": "turn_end", **closing}) + "\n")
        super().finish(summary)


def output_for(fmt: str, *, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> Output:
    progress = bool(getattr(stderr, "isatty", lambda: False)())
    kind = {"text": TextOutput, "json": JsonOutput, "stream-json": StreamJsonOutput}[fmt]
    return kind(stdout, stderr, progress=progress)
