"""MCP server configuration: `[mcp.servers.<name>]` in config.toml and `mcpServers` JSON files.

Both forms become `ServerConfig`s. `${VAR}` (and `${VAR:-default}`) is expanded in commands,
arguments, env values, cwd, URLs and headers. A stdio server's process gets only the variables it
declares plus a minimal base (`BASE_ENV`), never the whole environment of Whimbrel.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from app.mcp.naming import server_name_problem
from app.settings.mcp_oauth import OAuthConfigError, OAuthSettings, parse_oauth

BASE_ENV = ("PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TMPDIR")
TRANSPORTS = ("stdio", "http", "sse")
PROJECT_FILE = ".mcp.json"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpConfigError(ValueError):
    """A server definition cannot be used; the message names the server and the problem."""


@dataclass
class ServerConfig:
    """One MCP server. `transport` is 'stdio' (command/args/env/cwd), 'http' or 'sse' (url/headers).

    `inprocess` holds an SDK `Server`/`MCPServer` object (tests and benchmarks connect in memory).
    `source` says where the definition came from, for messages.
    """

    name: str
    transport: str = "stdio"
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    timeout: float | None = None  # per-call timeout override, seconds
    oauth: OAuthSettings | None = None  # None: the default (OAuth on for http/sse, see app/mcp/oauth)
    source: str = ""
    inprocess: Any = None

    def describe(self) -> str:
        """A one-line description of where the server is: its command line or URL."""
        if self.inprocess is not None:
            return "in-process"
        if self.transport == "stdio":
            return shlex.join([self.command or "", *self.args])
        return f"{self.transport} {self.url}"


def expand(value: str, env: Mapping[str, str]) -> str:
    """Replace `${VAR}` / `${VAR:-default}`; an unset variable without default becomes ''."""
    return _VAR.sub(lambda m: env.get(m.group(1), m.group(2) if m.group(2) is not None else ""), value)


def _strings(name: str, key: str, value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{where}: MCP server '{name}': '{key}' must be a list of strings")
    return value


def _table(name: str, key: str, value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float, bool)) for v in value.values()):
        raise McpConfigError(f"{where}: MCP server '{name}': '{key}' must be a table of strings")
    return {str(k): str(v) for k, v in value.items()}


def server_from_dict(name: str, data: Mapping[str, Any], *, source: str = "",
                     env: Mapping[str, str] | None = None) -> ServerConfig:
    """Build one server from its TOML table or `mcpServers` JSON entry, expanding `${VAR}`."""
    env = os.environ if env is None else env
    where = source or "config"
    problem = server_name_problem(name)
    if problem:
        raise McpConfigError(f"{where}: {problem}")
    if not isinstance(data, Mapping):
        raise McpConfigError(f"{where}: MCP server '{name}' must be a table/object")
    known = {"type", "transport", "command", "args", "env", "cwd", "url", "headers", "enabled",
             "disabled", "timeout", "oauth"}
    unknown = [k for k in data if k not in known]
    if unknown:
        raise McpConfigError(f"{where}: MCP server '{name}': unknown key(s) {', '.join(map(repr, unknown))} "
                             f"(known: {', '.join(sorted(known))})")
    kind = data.get("type", data.get("transport"))
    if kind in (None, ""):
        kind = "http" if "url" in data and "command" not in data else "stdio"
    if kind == "streamable-http" or kind == "streamableHttp":
        kind = "http"
    if kind not in TRANSPORTS:
        raise McpConfigError(f"{where}: MCP server '{name}': type must be one of "
                             f"{', '.join(TRANSPORTS)}, got {kind!r}")
    x = lambda s: expand(s, env)  # noqa: E731
    config = ServerConfig(name=name, transport=kind, source=where)
    if kind == "stdio":
        command = data.get("command")
        if not isinstance(command, str) or not command.strip():
            raise McpConfigError(f"{where}: MCP server '{name}' needs a 'command' (or type = \"http\"/\"sse\" "
                                 f"with a 'url')")
        if data.get("oauth") not in (None, False):
            raise McpConfigError(f"{where}: MCP server '{name}': 'oauth' applies to http and sse servers only")
        config.command = x(command)
        config.args = [x(a) for a in _strings(name, "args", data.get("args", []), where)]
        config.env = {k: x(v) for k, v in _table(name, "env", data.get("env", {}), where).items()}
        if data.get("cwd") is not None:
            if not isinstance(data["cwd"], str):
                raise McpConfigError(f"{where}: MCP server '{name}': 'cwd' must be a string")
            config.cwd = x(data["cwd"])
    else:
        url = data.get("url")
        if not isinstance(url, str) or not re.match(r"https?://", x(url)):
            raise McpConfigError(f"{where}: MCP server '{name}' ({kind}) needs a 'url' starting with "
                                 f"http:// or https://")
        config.url = x(url)
        config.headers = {k: x(v) for k, v in _table(name, "headers", data.get("headers", {}), where).items()}
        if data.get("oauth") is not None:
            try:
                config.oauth = parse_oauth(name, data["oauth"], where, x)
            except OAuthConfigError as exc:
                raise McpConfigError(str(exc)) from None
    if "enabled" in data:
        config.enabled = bool(data["enabled"])
    if data.get("disabled"):
        config.enabled = False
    if data.get("timeout") is not None:
        if not isinstance(data["timeout"], (int, float)) or isinstance(data["timeout"], bool) \
                or data["timeout"] <= 0:
            raise McpConfigError(f"{where}: MCP server '{name}': 'timeout' must be a positive number")
        config.timeout = float(data["timeout"])
    return config


def servers_from_json(text: str, *, source: str, env: Mapping[str, str] | None = None
                      ) -> dict[str, ServerConfig]:
    """Parse the standard `{"mcpServers": {name: {...}}}` format (a bare mapping is accepted too)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{source} line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise McpConfigError(f"{source}: expected a JSON object with 'mcpServers'")
    servers = data.get("mcpServers", data.get("servers", data))
    if not isinstance(servers, dict):
        raise McpConfigError(f"{source}: 'mcpServers' must be an object")
    return {name: server_from_dict(name, entry, source=source, env=env) for name, entry in servers.items()}


def load_servers(toml_servers: Mapping[str, Any] | None = None, *, workspace: Path | None = None,
                 json_files: list[Path] = (), env: Mapping[str, str] | None = None,
                 ) -> tuple[dict[str, ServerConfig], list[str]]:
    """All configured servers and the problems found, one line each.

    Order of precedence (later wins on a name clash): config.toml `[mcp.servers]`, then the given
    JSON files, then the project's `.mcp.json` in `workspace`. A bad server is reported and
    skipped; the others still load.
    """
    servers: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for name, entry in (toml_servers or {}).items():
        try:
            servers[name] = server_from_dict(name, entry, source="config.toml [mcp.servers]", env=env)
        except McpConfigError as exc:
            problems.append(str(exc))
    files = list(json_files)
    if workspace is not None and (Path(workspace) / PROJECT_FILE).is_file():
        files.append(Path(workspace) / PROJECT_FILE)
    for path in files:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            problems.append(f"{path}: cannot read: {exc.strerror or exc}")
            continue
        try:
            parsed = servers_from_json(text, source=str(path), env=env)
        except McpConfigError as exc:
            # one bad entry should not hide the good ones: parse entry by entry
            try:
                raw = json.loads(text)
                raw = raw.get("mcpServers", raw) if isinstance(raw, dict) else {}
            except json.JSONDecodeError:
                raw = {}
            parsed = {}
            for name, entry in (raw.items() if isinstance(raw, dict) else ()):
                try:
                    parsed[name] = server_from_dict(name, entry, source=str(path), env=env)
                except McpConfigError as inner:
                    problems.append(str(inner))
            if not raw:
                problems.append(str(exc))
        servers.update(parsed)
    return servers, problems


def stdio_environment(config: ServerConfig, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a stdio server starts with: the minimal base plus what it declares."""
    env = os.environ if env is None else env
    base = {k: env[k] for k in BASE_ENV if env.get(k)}
    return {**base, **config.env}


def parse_server_spec(spec: str, configured: Mapping[str, ServerConfig]) -> ServerConfig:
    """A CLI `<server>`: a configured name, an http(s) URL (SSE when it ends in /sse) or `stdio:<cmd>`."""
    if spec in configured:
        return configured[spec]
    if spec.startswith("stdio:"):
        try:
            words = shlex.split(spec[len("stdio:"):])
        except ValueError as exc:  # an unbalanced quote
            raise McpConfigError(f"the command line {spec[len('stdio:'):]!r} cannot be split like a shell "
                                 f"would: {exc} (close the quote, or quote the whole spec differently)") from None
        if not words:
            raise McpConfigError("'stdio:' needs a command line, e.g. \"stdio:mcp-server-time\"")
        return ServerConfig(name="stdio", command=words[0], args=words[1:], source="command line")
    if re.match(r"https?://", spec):
        kind = "sse" if spec.rstrip("/").endswith("/sse") else "http"
        return ServerConfig(name="url", transport=kind, url=spec, source="command line")
    known = ", ".join(configured) or "none configured"
    raise McpConfigError(f"unknown MCP server {spec!r}: give a configured name ({known}), an http(s):// URL "
                         f"or \"stdio:<command line>\"")


def servers_from_app_config(config: Any, workspace: Path | None,
                            env: Mapping[str, str] | None = None) -> tuple[dict[str, ServerConfig], list[str]]:
    """The servers of a loaded `app.settings.config.Config` plus the workspace's `.mcp.json`."""
    base = Path(config.path).parent if getattr(config, "path", None) else Path.cwd()
    files = [(base / Path(f).expanduser()) for f in getattr(config, "mcp_config_files", [])]
    return load_servers(getattr(config, "mcp_servers", {}), workspace=workspace, json_files=files, env=env)


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110)


def headers_from_form(name: str, headers_text: str, bearer: str = "") -> dict[str, str]:
    """`Name: value; Other: value` (and a bearer token, sent as `Authorization: Bearer <token>`)."""
    headers: dict[str, str] = {}
    for part in (p.strip() for p in headers_text.split(";")):
        if not part:
            continue
        key, sep, value = part.partition(":")
        key = key.strip()
        if not sep or not _HEADER_NAME.fullmatch(key) or not value.strip():
            raise McpConfigError(f"MCP server '{name}': headers are 'Name: value', separated by ';', got {part!r}")
        headers[key] = value.strip()
    token = bearer.strip().removeprefix("Bearer ").strip()
    if token:
        if any(k.lower() == "authorization" for k in headers):
            raise McpConfigError(f"MCP server '{name}': give either a bearer token or an Authorization header, "
                                 f"not both")
        if any(c.isspace() for c in token):
            raise McpConfigError(f"MCP server '{name}': a bearer token has no spaces (paste only the token)")
        headers["Authorization"] = f"Bearer {token}"
    return headers


def entry_from_form(name: str, transport: str, command_line: str = "", url: str = "", env_text: str = "",
                    headers_text: str = "", bearer: str = "") -> tuple[dict[str, Any], ServerConfig]:
    """A `[mcp.servers.<name>]` table from the inspector's add-server form, checked by the loader's rules.

    `command_line` is split like a shell would (`npx -y pkg --flag`); `env_text` holds `KEY=VALUE`
    words; an http/sse server may have `headers_text` and a `bearer` token (see `headers_from_form`;
    `${VAR}` keeps a secret out of the file). Raises McpConfigError with the loader's words.
    """
    name = name.strip()
    entry: dict[str, Any] = {}
    if transport == "stdio":
        try:
            words = shlex.split(command_line)
        except ValueError as exc:
            raise McpConfigError(f"MCP server '{name}': the command line cannot be split: {exc}") from None
        if words:
            entry["command"] = words[0]
        if words[1:]:
            entry["args"] = words[1:]
        env: dict[str, str] = {}
        try:
            pairs = shlex.split(env_text)
        except ValueError as exc:
            raise McpConfigError(f"MCP server '{name}': the environment cannot be split: {exc}") from None
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                raise McpConfigError(f"MCP server '{name}': environment entries are KEY=VALUE, got {pair!r}")
            env[key] = value
        if env:
            entry["env"] = env
    else:
        entry["type"] = transport
        entry["url"] = url.strip()
        headers = headers_from_form(name, headers_text, bearer)
        if headers:
            entry["headers"] = headers
    return entry, server_from_dict(name, entry, source="config.toml [mcp.servers]")
