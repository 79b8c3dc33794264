"""What the manager knows about one MCP server (`ServerState`), its status names and its errors.

The inspector and the CLI read these; only the manager writes them.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from typing import Any

from app.mcp.breaker import CircuitBreaker
from app.mcp.inspection import Inspection
from app.mcp.config import ServerConfig
from app.mcp.protocol_log import ServerLogs
from app.mcp.url_elicitation import Completions
from tools.errors import ToolError
from tools.spec import ToolSpec

CONNECTING, READY, FAILED, CIRCUIT_OPEN, DISABLED = "connecting", "ready", "failed", "circuit-open", "disabled"
AUTHORIZING = "authorizing"  # waiting for a person to sign in through the browser (OAuth)
STDERR_TAIL = 4000


class McpUnavailable(ToolError):
    """The server cannot take requests now (not connected, failed, circuit open, unknown)."""


class McpCallError(ToolError):
    """A request failed: timeout, lost connection, or an error answer from the server."""


@dataclass
class ServerState:
    """Everything known about one server; the inspector reads it, the manager writes it."""

    config: ServerConfig
    status: str = CONNECTING
    reason: str = ""
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    logs: ServerLogs = field(default_factory=ServerLogs)
    protocol_version: str | None = None
    server_info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None
    tools: list[Any] = field(default_factory=list)
    resources: list[Any] = field(default_factory=list)
    templates: list[Any] = field(default_factory=list)
    prompts: list[Any] = field(default_factory=list)
    specs: tuple[ToolSpec, ...] = ()
    schema_problems: dict[str, str] = field(default_factory=dict)
    connected_at: float | None = None
    last_refresh: float | None = None
    client: Any = None
    task: asyncio.Task | None = None
    stderr: Any = None  # a temp file the stdio process writes its stderr to
    prespawned: Any = None  # a stdio server already started (app/mcp/prespawn.py): the next connection uses it
    auth: Any = None  # app.mcp.oauth.flow.GuardedAuth of the current connection (http/sse with OAuth)
    token_store: Any = None  # app.mcp.oauth.store.TokenStore, kept across reconnects
    oauth_steps: Any = None  # app.mcp.oauth.steps.OAuthSteps: each sign-in step, for the inspector's OAuth view
    url_completions: Completions = field(default_factory=Completions)  # browser steps done (-32042)
    inspection: Inspection = field(default_factory=Inspection)  # subscriptions, log level, roots (app/mcp/inspection.py)
    _closed: asyncio.Event = field(default_factory=asyncio.Event)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _settled: asyncio.Event = field(default_factory=asyncio.Event)
    _pending_refresh: set[str] = field(default_factory=set)
    _refresh_task: asyncio.Task | None = None
    _tool_names: dict[str, str] = field(default_factory=dict)  # model-facing name -> MCP tool name
    _tripped: bool = False
    _deadlines: set[Any] = field(default_factory=set)  # running deadlines, paused while signing in
    _handshaking: bool = False  # in the SDK Client's enter: stopping cancels it (it would wait out its deadline)
    _status_before_auth: str = CONNECTING

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def transport(self) -> str:
        return "in-process" if self.config.inprocess is not None else self.config.transport

    def stderr_tail(self, limit: int = STDERR_TAIL) -> str:
        if self.stderr is None:
            return ""
        try:
            self.stderr.flush()
            self.stderr.seek(0, 2)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - limit))
            return self.stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def stderr_head(self, limit: int = 256) -> str:
        """The first bytes of the stdio process's stderr (where the wrapper names its process group)."""
        if self.stderr is None:
            return ""
        try:
            self.stderr.flush()
            return os.pread(self.stderr.fileno(), limit, 0).decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def summary(self) -> dict[str, Any]:
        """A JSON-ready view for the CLI and the inspector."""
        return {
            "name": self.name, "transport": self.transport, "target": self.config.describe(),
            "status": self.status, "reason": self.reason, "enabled": self.config.enabled,
            "protocol_version": self.protocol_version, "server_info": self.server_info,
            "capabilities": self.capabilities, "instructions": self.instructions,
            "tools": len(self.tools), "resources": len(self.resources), "templates": len(self.templates),
            "prompts": len(self.prompts), "consecutive_failures": self.breaker.failures,
            "retry_in": round(self.breaker.seconds_until_retry(), 1) if self.status in (FAILED, CIRCUIT_OPEN)
            else None,
        }


def describe_error(exc: BaseException) -> str:
    """Words for a connection failure, unwrapping anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {exc.filename or exc}"
    error = getattr(exc, "error", None)  # MCPError
    if error is not None and getattr(error, "message", None):
        return f"{error.message} (code {error.code})"
    text = str(exc) or type(exc).__name__
    if type(exc).__name__ not in text:
        text = f"{type(exc).__name__}: {text}"
    return text


def text_of(data: Any) -> str:
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
