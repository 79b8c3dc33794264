"""What the inspector asks of a server beyond the model's needs: tool calls whose structured output is
checked by us (so a wrong result is shown with its errors, not swallowed), resource subscriptions,
argument completion, the server's log level and the roots offered to it.

`Inspection` is the per-server record (on `ServerState.inspection`, with the history of calls made by
hand, kept across reconnects); `McpInspection` is a mixin of
`McpManager` whose requests go through the same timeouts and error words as every other request.
"""

from __future__ import annotations

import time
import warnings
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

HISTORY_LIMIT = 200
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


@dataclass
class Root:
    """A root offered to a server: a file:// URI and a name."""

    uri: str
    name: str = ""


@dataclass
class CallRecord:
    """One request made by hand in the inspector: which tab (`kind`) and item, the arguments (and the
    form's raw values, to fill it again), whether it worked, what was shown (opaque to the engine) and
    the answer as JSON (what the store keeps and the History tab shows after a restart)."""

    at: float
    kind: str
    key: str
    label: str
    arguments: dict[str, Any]
    raw: dict[str, Any]
    ok: bool
    elapsed_ms: float
    shown: Any = None
    answer: dict[str, Any] | None = None


@dataclass
class Inspection:
    """Per server: subscribed resource URIs (with when each last changed), the log level set from the
    inspector, and the roots offered (None: the workspace)."""

    subscriptions: set[str] = field(default_factory=set)
    updated: dict[str, float] = field(default_factory=dict)  # uri -> time of its last `resources/updated`
    log_level: str | None = None
    roots: list[Root] | None = None
    history: deque[CallRecord] = field(default_factory=lambda: deque(maxlen=HISTORY_LIMIT))  # newest last

    def connection_ended(self) -> None:
        """A new connection starts with nothing subscribed and the server's own log level."""
        self.subscriptions.clear()
        self.log_level = None

    def roots_or(self, workspace: Path) -> list[Root]:
        return list(self.roots) if self.roots is not None else [Root(workspace.as_uri(), workspace.name)]


def root_from_text(text: str, base: Path | None) -> Root:
    """A root from what a user typed: a file:// URI or a directory path (relative to `base`).

    Raises ValueError with words when it is neither an existing directory nor a file:// URI."""
    text = text.strip()
    if not text:
        raise ValueError("type a directory or a file:// URI")
    if text.startswith("file://"):
        return Root(text, text.rstrip("/").rsplit("/", 1)[-1])
    if "://" in text:
        raise ValueError(f"a root must be a file:// URI or a directory, not {text!r}")
    path = ((base or Path.cwd()) / Path(text).expanduser()).resolve()
    if not path.is_dir():
        raise ValueError(f"{path} is not a directory")
    return Root(path.as_uri(), path.name)


async def legacy_request(call: Callable[[], Any]) -> Any:
    """A request that 2026-07-28 removed but a 2025 server (which advertised it) still serves: the SDK's
    deprecation warning is for code that targets the new protocol, not for us."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".* (removed|deprecated) as of 2026-07-28")
        return await call()


def completion_values(result: Any) -> list[str]:
    """The values of a CompleteResult (at most the 100 the spec allows)."""
    completion = getattr(result, "completion", None)
    return [str(v) for v in (getattr(completion, "values", None) or [])][:100]


class McpInspection:
    """A mixin of `McpManager` (it provides `_ready`, `_request`, `_state`, `_notify`, `call_timeout`)."""

    def _limit(self, state: Any) -> float:
        return state.config.timeout or self.call_timeout

    async def call_tool_unchecked(self, server: str, tool: str, arguments: dict[str, Any] | None = None, *,
                                  on_progress: Callable[[float, float | None, str | None], None] | None = None
                                  ) -> Any:
        """tools/call returning the server's CallToolResult as sent: the SDK's own output-schema check,
        which raises and loses the result, is left to `app.mcp.output_check` (all errors, result kept)."""
        import mcp.types as types

        state, client = self._ready(server)
        limit = self._limit(state)

        async def progress(value: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                on_progress(value, total, message)

        request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=arguments or {}))
        return await self._request(state, f"tools/call {tool}", limit, lambda: client.session.send_request(
            request, types.CallToolResult, request_read_timeout_seconds=limit, progress_callback=progress))

    async def subscribe_resource(self, server: str, uri: str) -> None:
        state, client = self._ready(server)
        await self._request(state, f"resources/subscribe {uri}", self._limit(state),
                            lambda: legacy_request(lambda: client.subscribe_resource(uri)))
        state.inspection.subscriptions.add(uri)
        self._notify(server, "subscriptions")

    async def unsubscribe_resource(self, server: str, uri: str) -> None:
        state, client = self._ready(server)
        await self._request(state, f"resources/unsubscribe {uri}", self._limit(state),
                            lambda: legacy_request(lambda: client.unsubscribe_resource(uri)))
        state.inspection.subscriptions.discard(uri)
        self._notify(server, "subscriptions")

    def resource_updated(self, state: Any, uri: str) -> None:
        """A `notifications/resources/updated` arrived (called by the message handler)."""
        state.inspection.updated[uri] = time.time()
        state.logs.log("info", "whimbrel", f"resource updated: {uri}")
        self._notify(state.name, f"resource-updated:{uri}")

    async def complete(self, server: str, ref: tuple[str, str], argument: str, value: str,
                       context: dict[str, str] | None = None) -> list[str]:
        """completion/complete for a prompt argument (`ref` ("prompt", name)) or a resource-template
        variable (("template", uri_template)); [] when the server does not offer completions."""
        import mcp.types as types

        state, client = self._ready(server)
        if "completions" not in (state.capabilities or {}):
            return []
        kind, name = ref
        reference = types.PromptReference(type="ref/prompt", name=name) if kind == "prompt" else \
            types.ResourceTemplateReference(type="ref/resource", uri=name)
        result = await self._request(state, f"completion/complete {argument}", self._limit(state),
                                     lambda: client.complete(reference, {"name": argument, "value": value},
                                                             context_arguments=context or None))
        return completion_values(result)

    async def set_log_level(self, server: str, level: str) -> None:
        """logging/setLevel: the server sends log messages at `level` and above."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}: one of {', '.join(LOG_LEVELS)}")
        state, client = self._ready(server)
        await self._request(state, f"logging/setLevel {level}", self._limit(state),
                            lambda: legacy_request(lambda: client.set_logging_level(level)))
        state.inspection.log_level = level
        state.logs.log("info", "whimbrel", f"log level set to {level}")
        self._notify(server, "log")

    def roots_of(self, server: str) -> list[Root]:
        return self._state(server).inspection.roots_or(self.workspace)

    async def set_roots(self, server: str, roots: list[Root]) -> bool:
        """Offer `roots` to the server from now on and tell it (notifications/roots/list_changed);
        False when it is not connected (it reads them when it next asks)."""
        state = self._state(server)
        state.inspection.roots = list(roots)
        self._notify(server, "roots")
        client = state.client
        if client is None or state.status != "ready":
            return False
        await self._request(state, "notifications/roots/list_changed", self._limit(state),
                            lambda: legacy_request(lambda: client.send_roots_list_changed()))
        state.logs.log("info", "whimbrel", f"roots changed: {len(roots)} root(s); the server was told")
        return True
