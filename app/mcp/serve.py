"""`whimbrel mcp serve`: Whimbrel's built-in tools served to other MCP clients, over stdio or
streamable HTTP (`--http HOST:PORT`, 127.0.0.1 by default, a bearer token required).

    whimbrel mcp serve                         # stdio, read-only tools
    whimbrel mcp serve --http 127.0.0.1:8765   # HTTP; the token is $WHIMBREL_MCP_TOKEN or printed once
    whimbrel mcp serve --tools write_file --allow write_file

Only read-only tools are offered unless `--tools` names more. Every call goes through the same
pipeline as in the TUI (prepare, policy gate, execute, truncate); nobody is there to approve, so a
call that would ask is refused with the reason, unless `--allow` pre-approved that tool. Results
never carry the server's secrets (its token, and environment values that look like credentials).
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import logging
import os
import secrets as secrets_module
import sys
import uuid
from pathlib import Path
from typing import Any

from app.vocabulary.messages import ToolCall
from tools.context import ToolContext
from tools.pipeline import approval_reason, execute, prepare
from tools.registry import ToolRegistry
from tools.visibility import ToolScope, visible_tools
from tools.web_search import unavailable_tools

SECRET_NAMES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
REDACTED = "[redacted]"
log = logging.getLogger("whimbrel.mcp.serve")


class ToolServer:
    """The policy half, transport-free: which tools are offered, and one call through the pipeline."""

    def __init__(self, registry: ToolRegistry, workspace: Path, expose: set[str] = frozenset(),
                 allow: set[str] = frozenset(), secrets: list[str] = ()) -> None:
        self.registry = registry
        offered = {n for n in registry.names() if (s := registry.get(n)) and (s.read_only or n in expose)}
        unknown = (set(expose) | set(allow)) - set(registry.names())
        if unknown:
            raise ValueError(f"unknown tool(s): {', '.join(sorted(unknown))} (known: {', '.join(registry.names())})")
        self.context = ToolContext(workspace=workspace)
        self.scope = ToolScope(allowed=frozenset(offered), hidden=unavailable_tools(self.context))
        self.allow = set(allow)
        self.secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def tools(self) -> list[dict[str, Any]]:
        """name, description and input schema of each offered tool."""
        return [{"name": s.name, "description": s.schema["function"].get("description", ""),
                 "input_schema": s.parameters, "read_only": s.read_only}
                for s in visible_tools(self.registry, self.scope)]

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text

    async def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[str, bool]:
        """(result text, is_error) for one call; refused calls are errors that say why."""
        call = ToolCall(id=f"mcp_{uuid.uuid4().hex[:12]}", name=name, arguments=json.dumps(arguments or {}))
        prepared = prepare(call, self.registry, self.context, self.scope)
        if prepared.error is not None:
            outcome = (prepared.error, True)
        elif (reason := approval_reason(prepared, self.allow)) is not None:
            outcome = (f"Refused: {name} needs approval ({reason}), and nobody is here to approve it over MCP. "
                       f"The server's operator can pre-approve it with `whimbrel mcp serve --allow {name}`.", True)
        else:
            outcome = await execute(prepared, self.context)
        log.info("mcp serve call %s -> %s", name, "error" if outcome[1] else "ok")
        return self.redact(outcome[0]), outcome[1]


def environment_secrets(env: dict[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names say they are credentials."""
    env = os.environ if env is None else env
    return [v for k, v in env.items() if any(word in k.upper() for word in SECRET_NAMES)]


def build_mcp_server(tools: ToolServer):
    """The low-level `mcp` Server bound to `tools`."""
    import mcp.types as types
    from mcp.server.lowlevel.server import Server

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=t["name"], description=t["description"], input_schema=t["input_schema"],
                       annotations=types.ToolAnnotations(read_only_hint=t["read_only"]))
            for t in tools.tools()])

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text, is_error = await tools.call(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    return Server("whimbrel", version="0.1.0", instructions="Whimbrel's built-in tools, acting in "
                  f"{tools.context.workspace}.", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(tools: ToolServer) -> None:
    from mcp.server.stdio import stdio_server

    server = build_mcp_server(tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def bearer_guard(app: Any, token: str):
    """An ASGI wrapper: HTTP requests without `Authorization: Bearer <token>` get 401."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": b"a bearer token is required\n"})
                return
        await app(scope, receive, send)
    return guarded


def http_app(tools: ToolServer, host: str, token: str):
    server = build_mcp_server(tools)
    return bearer_guard(server.streamable_http_app(host=host), token)


async def serve_http(tools: ToolServer, host: str, port: int, token: str) -> None:
    import uvicorn

    config = uvicorn.Config(http_app(tools, host, token), host=host, port=port, log_level="warning",
                            access_log=False, lifespan="on")
    await uvicorn.Server(config).serve()


def parse_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    if not port.isdigit():
        raise ValueError(f"--http wants HOST:PORT (e.g. 127.0.0.1:8765), not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="whimbrel mcp serve", description="Serve Whimbrel's tools over MCP.")
    p.add_argument("--http", metavar="HOST:PORT", help="streamable HTTP instead of stdio (host 127.0.0.1 "
                                                       "by default; requests need the bearer token)")
    p.add_argument("--token", help="the bearer token for --http (default: $WHIMBREL_MCP_TOKEN, else a new "
                                   "one printed to stderr)")
    p.add_argument("--tools", default="", help="comma-separated tools to offer besides the read-only ones")
    p.add_argument("--allow", default="", help="comma-separated tools that run without approval (others that "
                                               "would ask are refused)")
    p.add_argument("--workdir", type=Path, default=None, help="the workspace tools act in (default: cwd)")
    return p


def _names(text: str) -> set[str]:
    return {n.strip() for n in text.split(",") if n.strip()}


def main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    logging.getLogger("mcp").addHandler(logging.NullHandler())
    token = args.token or os.environ.get("WHIMBREL_MCP_TOKEN") or ""
    if args.http and not token:
        token = secrets_module.token_urlsafe(24)
        print(f"whimbrel mcp serve: bearer token {token}", file=sys.stderr)
    try:
        tools = ToolServer(ToolRegistry.load_builtin(), (args.workdir or Path.cwd()).resolve(),
                           expose=_names(args.tools), allow=_names(args.allow),
                           secrets=environment_secrets() + [token])
        address = parse_address(args.http) if args.http else None
    except ValueError as error:
        print(f"whimbrel mcp serve: {error}", file=sys.stderr)
        return 2
    try:
        if address is None:
            asyncio.run(serve_stdio(tools))
        else:
            print(f"whimbrel mcp serve: http://{address[0]}:{address[1]}/mcp", file=sys.stderr)
            asyncio.run(serve_http(tools, address[0], address[1], token))
    except KeyboardInterrupt:
        pass
    except OSError as error:
        print(f"whimbrel mcp serve: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
