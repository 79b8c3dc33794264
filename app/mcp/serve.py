"""`whimbrel mcp serve`: Whimbrel's built-in tools served to other MCP clients, over stdio or
streamable HTTP (`--http HOST:PORT`, 127.0.0.1 by default, a bearer token required).

    whimbrel mcp serve                         # stdio, read-only tools
    whimbrel mcp serve --http 127.0.0.1:8765   # HTTP; the token is $WHIMBREL_MCP_TOKEN or printed once
    whimbrel mcp serve --tools write_file,bash --allow write_file --allow 'bash(git status)'

Only read-only tools are offered unless `--tools` names more. Every call goes through the same
permission engine as in the TUI (app/mcp/serve_gate.py: rules of config.toml and the accepted project
file, hooks, --mode, risk, protected places, the sandbox) and writes an audit row; nobody is there to
approve, so a call that would ask is refused with the reason, unless an `--allow` rule allows it.
Results never carry the server's secrets (its token, and environment values that look like credentials).
Over HTTP a request without the token gets 401 with `WWW-Authenticate: Bearer error="invalid_token",
error_description=...` saying a static token is expected, and `resource_metadata` pointing at RFC 9728
metadata that names no authorization server; SSE streams open with a priming event and `retry:`.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import logging
import os
import secrets as secrets_module
import sys
from pathlib import Path
from typing import Any

from app.mcp.serve_gate import NOBODY, guarded_call
from tools.context import ToolContext
from tools.guard import CallGuard
from tools.registry import ToolRegistry
from tools.visibility import ToolScope, visible_tools
from tools.web_search import unavailable_tools

SECRET_NAMES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
REDACTED = "[redacted]"
log = logging.getLogger("whimbrel.mcp.serve")


class ToolServer:
    """The policy half, transport-free: which tools are offered, and one call through the permission engine."""

    def __init__(self, registry: ToolRegistry, workspace: Path, expose: set[str] = frozenset(),
                 secrets: list[str] = (), guard: CallGuard | None = None) -> None:
        self.registry = registry
        offered = {n for n in registry.names() if (s := registry.get(n)) and (s.read_only or n in expose)}
        unknown = set(expose) - set(registry.names())
        if unknown:
            raise ValueError(f"unknown tool(s): {', '.join(sorted(unknown))} (known: {', '.join(registry.names())})")
        self.context = ToolContext(workspace=workspace)
        self.scope = ToolScope(allowed=frozenset(offered), hidden=unavailable_tools(self.context))
        self.guard = guard or default_guard(workspace)
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
        text, is_error = await guarded_call(self.guard, self.registry, self.context, self.scope, name, arguments)
        for notice in self.guard.notices:  # hook failures: the operator reads them in the log
            log.warning("mcp serve: %s", notice)
        self.guard.notices.clear()
        log.info("mcp serve call %s -> %s", name, "error" if is_error else "ok")
        return self.redact(text), is_error


def default_guard(workspace: Path, mode: str = "ask", rules: list | None = None) -> CallGuard:
    """The permission engine with no config file and no audit log (a ToolServer built in a test)."""
    from app.settings.paths import default_config_path, default_data_dir
    from app.permissions import loader
    from tools.unattended import guard_from

    return guard_from(loader.load(None, workspace, None, rules or []), config=None, workspace=workspace,
                      data_dir=default_data_dir(), config_path=default_config_path(), mode=mode, nobody=NOBODY)


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


METADATA_PATH = "/.well-known/oauth-protected-resource"
DESCRIPTION = ("this server takes a static bearer token, the one `whimbrel mcp serve` printed at start (or "
               "$WHIMBREL_MCP_TOKEN), as 'Authorization: Bearer <token>'; it has no OAuth sign-in")


def resource_metadata(base: str) -> dict[str, Any]:
    """The RFC 9728 protected-resource metadata: the resource and a bearer token in the header; no
    `authorization_servers` (the field is optional there): there is no sign-in to start."""
    return {"resource": f"{base}/mcp", "bearer_methods_supported": ["header"],
            "resource_name": "whimbrel mcp serve"}


def bearer_guard(app: Any, token: str):
    """An ASGI wrapper: HTTP requests without `Authorization: Bearer <token>` get 401, with a WWW-Authenticate
    that says a static token is expected (RFC 6750: the error and its description; RFC 9728: where the
    resource's metadata is, which names no authorization server). The metadata itself needs no token."""
    import json

    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1") or "127.0.0.1"
        base = f"{scope.get('scheme', 'http')}://{host}"
        if scope.get("path", "").startswith(METADATA_PATH):
            body = json.dumps(resource_metadata(base)).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        given = headers.get(b"authorization", b"")
        if hmac.compare_digest(given, expected):
            await app(scope, receive, send)
            return
        why = "no bearer token was sent" if not given else "the bearer token is not this server's"
        challenge = (f'Bearer realm="whimbrel", error="invalid_token", error_description="{why}: {DESCRIPTION}", '
                     f'resource_metadata="{base}{METADATA_PATH}/mcp"')
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", challenge.encode())]})
        await send({"type": "http.response.body", "body": f"{why}: {DESCRIPTION}\n".encode()})
    return guarded


def http_app(tools: ToolServer, host: str, token: str):
    from app.mcp.serve_events import RETRY_MS, MemoryEventStore

    server = build_mcp_server(tools)
    return bearer_guard(server.streamable_http_app(host=host, event_store=MemoryEventStore(),
                                                   retry_interval=RETRY_MS), token)


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
    from app.permissions.modes import CYCLE

    p = argparse.ArgumentParser(prog="whimbrel mcp serve", description="Serve Whimbrel's tools over MCP.")
    p.add_argument("--http", metavar="HOST:PORT", help="streamable HTTP instead of stdio (host 127.0.0.1 "
                                                       "by default; requests need the bearer token)")
    p.add_argument("--token", help="the bearer token for --http (default: $WHIMBREL_MCP_TOKEN, else a new "
                                   "one printed to stderr)")
    p.add_argument("--tools", default="", help="comma-separated tools to offer besides the read-only ones")
    p.add_argument("--allow", action="append", default=[], metavar="RULES",
                   help="rules that allow calls without approval, TOOL or TOOL(PATTERN) as in [policy], "
                        "comma-separated or repeated, e.g. write_file or 'bash(git status)'; calls that would "
                        "ask are refused")
    p.add_argument("--deny", action="append", default=[], metavar="RULES", help="rules that refuse calls; they win")
    p.add_argument("--mode", choices=CYCLE, default="ask", help="permission mode (default ask)")
    p.add_argument("--workdir", type=Path, default=None, help="the workspace tools act in (default: cwd)")
    p.add_argument("--config", type=Path, default=None, help="config file: its [policy] rules and [hooks] apply")
    p.add_argument("--data-dir", type=Path, default=None, help="where the audit log is kept (the store)")
    p.add_argument("--conformance", action="store_true",
                   help="for tests: serve, over --http on a loopback address and without a token, only the fixed "
                        "tools, resources and prompts the MCP conformance suite's server scenarios call "
                        "(app/mcp/serve_conformance.py), instead of Whimbrel's tools")
    return p


def _names(text: str) -> set[str]:
    return {n.strip() for n in text.split(",") if n.strip()}


def split_rules(values: list[str]) -> list[str]:
    """--allow/--deny values: each is one rule or several split at commas outside parentheses."""
    out: list[str] = []
    for value in values:
        depth, current = 0, ""
        for ch in value:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth <= 0:
                out.append(current)
                current = ""
            else:
                current += ch
        out.append(current)
    return [r.strip() for r in out if r.strip()]


def _rules(args: argparse.Namespace, known: list[str]) -> list[Any]:
    """The command line's rules; ValueError names an unknown tool or a malformed rule."""
    from app.permissions.rules import PATH_KINDS, RuleError
    from app.permissions.unattended import cli_rules

    allow, deny = split_rules(args.allow), split_rules(args.deny)
    try:
        rules = cli_rules(allow, deny)
    except RuleError as error:
        raise ValueError(f"malformed rule {error}") from None
    unknown = {r.tool for r in rules
               if not any(c in r.tool for c in "*?") and r.tool not in known and r.tool not in PATH_KINDS}
    if unknown:
        raise ValueError(f"unknown tool(s): {', '.join(sorted(unknown))} (known: {', '.join(known)}; "
                         f"path rules: {', '.join(f'{kind}(glob)' for kind in PATH_KINDS)})")
    return rules


async def _serve(tools: ToolServer, args: argparse.Namespace, rules: list[Any], token: str,
                 address: tuple[str, int] | None) -> int:
    """Open the store (the audit log), put the permission engine in front of the tools, serve."""
    from app.settings.paths import default_data_dir
    from app.storage.async_store import AsyncStore
    from tools.unattended import unattended_guard

    config, config_path = args.loaded_config
    data_dir = (args.data_dir or default_data_dir()).expanduser()
    try:
        store = await AsyncStore.open(data_dir / "whimbrel.db")
    except Exception as error:  # noqa: BLE001 - any cause (permissions, disk, corruption) is reported
        print(f"whimbrel mcp serve: could not open {data_dir / 'whimbrel.db'}: {str(error).splitlines()[0][:300]}",
              file=sys.stderr)
        return 1
    try:
        tools.guard = await unattended_guard(config=config, workspace=tools.context.workspace, data_dir=data_dir,
                                             config_path=config_path, store=store, mode=args.mode, rules=rules,
                                             nobody=NOBODY)
        for notice in tools.guard.notices:
            print(f"whimbrel mcp serve: {notice}", file=sys.stderr)
        tools.guard.notices.clear()
        if address is None:
            await serve_stdio(tools)
        else:
            print(f"whimbrel mcp serve: http://{address[0]}:{address[1]}/mcp", file=sys.stderr)
            await serve_http(tools, address[0], address[1], token)
    finally:
        await store.aclose()
    return 0


def main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    logging.getLogger("mcp").addHandler(logging.NullHandler())
    if args.conformance:
        return _conformance(args)
    token = args.token or os.environ.get("WHIMBREL_MCP_TOKEN") or ""
    if args.http and not token:
        token = secrets_module.token_urlsafe(24)
        print(f"whimbrel mcp serve: bearer token {token}", file=sys.stderr)
    from app.settings.config import ConfigError, load_config
    from app.settings.paths import chosen_config_path

    try:
        config_path, named_by = chosen_config_path(args.config)
        args.loaded_config = load_config(config_path, named_by), config_path
        registry = ToolRegistry.load_builtin()
        rules = _rules(args, registry.names())
        tools = ToolServer(registry, (args.workdir or Path.cwd()).resolve(), expose=_names(args.tools),
                           secrets=environment_secrets() + [token])
        address = parse_address(args.http) if args.http else None
    except (ValueError, ConfigError) as error:
        print(f"whimbrel mcp serve: {error}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_serve(tools, args, rules, token, address))
    except KeyboardInterrupt:
        return 0
    except OSError as error:
        print(f"whimbrel mcp serve: {error.strerror or error}", file=sys.stderr)
        return 1


def _conformance(args: argparse.Namespace) -> int:
    from app.mcp.serve_conformance import serve_conformance

    try:
        if not args.http:
            raise ValueError("--conformance needs --http HOST:PORT")
        host, port = parse_address(args.http)
        print(f"whimbrel mcp serve: conformance mode at http://{host}:{port}/mcp", file=sys.stderr)
        asyncio.run(serve_conformance(host, port))
    except ValueError as error:
        print(f"whimbrel mcp serve: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    except OSError as error:
        print(f"whimbrel mcp serve: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0
