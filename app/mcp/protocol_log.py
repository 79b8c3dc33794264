"""Per-server ring buffers: the JSON-RPC protocol log (with timings) and server log messages.

`LoggedTransport` wraps any SDK transport (stdio, streamable HTTP, SSE, in-memory) and records each
message as it crosses: requests, responses matched to their request with the elapsed time,
notifications and errors. It also notices end-of-stream, which is how the manager learns that a
server went away between calls.
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

PAYLOAD_LIMIT = 4000


@dataclass
class ProtocolEntry:
    """One message: `direction` '->' (to the server) or '<-'; `kind` request/response/error/notification."""

    at: float
    direction: str
    kind: str
    method: str = ""
    id: Any = None
    elapsed_ms: float | None = None
    raw: Any = None  # the message itself; encoded only when someone looks (see `payload`)

    @property
    def payload(self) -> str:
        """The message as (truncated) JSON, computed on first use: encoding every message up front
        would tax each request for a log that is rarely read."""
        cached = self.__dict__.get("_payload")
        if cached is None:
            data = _as_dict(self.raw)
            cached = _lazy_payload(data) if data is not None else _short(repr(self.raw))
            self.__dict__["_payload"] = cached
        return cached

    def line(self) -> str:
        timing = f" ({self.elapsed_ms:.1f} ms)" if self.elapsed_ms is not None else ""
        ident = f" #{self.id}" if self.id is not None else ""
        return f"{time.strftime('%H:%M:%S', time.localtime(self.at))} {self.direction} {self.kind}" \
               f"{ident} {self.method}{timing}"


@dataclass
class LogEntry:
    """A server log message (notifications/message) or a line the manager wants the user to see."""

    at: float
    level: str
    logger: str
    text: str


@dataclass
class ServerLogs:
    protocol: deque[ProtocolEntry] = field(default_factory=lambda: deque(maxlen=1000))
    messages: deque[LogEntry] = field(default_factory=lambda: deque(maxlen=500))
    pending: dict[Any, tuple[float, str]] = field(default_factory=dict)
    enabled: bool = True

    def record(self, direction: str, message: Any) -> None:
        """Record one JSON-RPC message object (an SDK JSONRPCMessage model or a dict)."""
        if not self.enabled:
            return
        now = time.time()
        inner = _unwrap(message)
        if isinstance(inner, dict):
            method, ident, failed = inner.get("method", ""), inner.get("id"), "error" in inner
        elif hasattr(inner, "jsonrpc"):
            fields = inner.__dict__  # a pydantic model's fields (a missing attribute would raise, slowly)
            method, ident = fields.get("method") or "", fields.get("id")
            failed = fields.get("error") is not None
        else:
            self.protocol.append(ProtocolEntry(now, direction, "error", raw=message))
            return
        elapsed = None
        if method and ident is not None:
            kind = "request"
            self.pending[(direction, ident)] = (time.perf_counter(), method)
        elif method:
            kind = "notification"
        else:
            kind = "error" if failed else "response"
            other = "->" if direction == "<-" else "<-"
            started = self.pending.pop((other, ident), None)
            if started is not None:
                elapsed = (time.perf_counter() - started[0]) * 1000
                method = started[1]
        self.protocol.append(ProtocolEntry(now, direction, kind, method, ident, elapsed, inner))

    def log(self, level: str, logger: str, text: str) -> None:
        self.messages.append(LogEntry(time.time(), level, logger, text))


def _unwrap(message: Any) -> Any:
    """SessionMessage -> JSONRPCMessage (-> a RootModel's root), read from instance dicts: a
    `getattr` default on a pydantic model goes through its slow raising `__getattr__`."""
    fields = getattr(message, "__dict__", None)
    if fields is None:
        return message
    inner = fields.get("message", message)
    fields = getattr(inner, "__dict__", None)
    return fields.get("root", inner) if fields is not None else inner


def _as_dict(message: Any) -> dict[str, Any] | None:
    inner = _unwrap(message)
    if isinstance(inner, dict):
        return inner
    dump = getattr(inner, "model_dump", None)
    if dump is None:
        return None
    try:
        return dump(by_alias=True, exclude_none=True, mode="json")
    except Exception:  # noqa: BLE001 - a log must never break the connection
        return None


def _short(text: str) -> str:
    return text if len(text) <= PAYLOAD_LIMIT else text[:PAYLOAD_LIMIT] + "…"


def _lazy_payload(data: dict[str, Any]) -> str:
    try:
        return _short(json.dumps(data, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return _short(repr(data))


class _LoggedRead:
    def __init__(self, inner: Any, logs: ServerLogs, on_eof: Callable[[], None]) -> None:
        self._inner, self._logs, self._on_eof = inner, logs, on_eof

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> _LoggedRead:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)

    def __aiter__(self) -> _LoggedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            item = await self._inner.__anext__()
        except StopAsyncIteration:
            self._on_eof()
            raise
        except Exception:
            self._on_eof()
            raise
        self._logs.record("<-", item)
        return item

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._logs.record("<-", item)
        return item


class _LoggedWrite:
    def __init__(self, inner: Any, logs: ServerLogs) -> None:
        self._inner, self._logs = inner, logs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> _LoggedWrite:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)

    async def send(self, item: Any) -> None:
        self._logs.record("->", item)
        await self._inner.send(item)


class LoggedTransport:
    """An SDK `Transport` wrapper: records traffic into `logs`, calls `on_eof` when the read side ends."""

    def __init__(self, inner: Any, logs: ServerLogs, on_eof: Callable[[], None]) -> None:
        self._inner, self._logs, self._on_eof = inner, logs, on_eof

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._inner.__aenter__()
        return _LoggedRead(read, self._logs, self._on_eof), _LoggedWrite(write, self._logs)

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)
