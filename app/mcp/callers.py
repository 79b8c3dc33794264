"""Which workstream a server-initiated request (sampling, elicitation) belongs to.

A server asks while it handles one of our tool calls. On a 2026-07-28 connection the SDK answers
the server's input requests inside the call's own task, so a context variable names the caller
exactly. On older connections the request arrives on the connection's reader task; then the
callers are the workstreams with a call running on that server (most recent first).
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Iterator

_caller: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar("whimbrel_mcp_caller", default=("", ""))


class CallTracker:
    """Tool calls running per server, by workstream id."""

    def __init__(self) -> None:
        self._running: dict[str, list[str]] = {}

    @contextlib.contextmanager
    def running(self, server: str, workstream_id: str) -> Iterator[None]:
        """Mark a call of `workstream_id` on `server` as running for the duration of the block."""
        if not workstream_id:
            yield
            return
        calls = self._running.setdefault(server, [])
        calls.append(workstream_id)
        token = _caller.set((server, workstream_id))
        try:
            yield
        finally:
            _caller.reset(token)
            calls.remove(workstream_id)

    def callers(self, server: str) -> list[str]:
        """The workstreams a request from `server` may belong to: exactly one when known, newest first."""
        exact_server, exact = _caller.get()
        if exact and exact_server == server:
            return [exact]
        seen: list[str] = []
        for workstream_id in reversed(self._running.get(server, [])):
            if workstream_id not in seen:
                seen.append(workstream_id)
        return seen
