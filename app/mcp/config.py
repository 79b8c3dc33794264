"""MCP server configuration: `[mcp.servers.<name>]` in config.toml and `mcpServers` JSON files.

Both forms become `ServerConfig`s. In the user's own files (config.toml, `[mcp] config_files`),
`${VAR}` (and `${VAR:-default}`) is expanded in commands, arguments, env values, cwd, URLs and headers.
The project's `.mcp.json` comes from a repository, not from the user: its servers load only once the
user accepted the file (app/permissions/project.py), and it expands no variable unless config.toml says
that server may, by name (`[mcp.project_env] NAME = ["VAR", ...]`); any other `${VAR}` stays literal,
so a cloned file cannot send Whimbrel's keys anywhere. A stdio server's process gets only the variables
it declares plus a minimal base (`BASE_ENV`), never the whole environment of Whimbrel.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Mapping

from app.mcp.naming import server_name_problem
from app.permissions.project import project_env as allowed_variables
from app.settings.mcp_oauth import OAuthConfigError, OAuthSettings, parse_oauth

BASE_ENV = ("PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TMPDIR")
TRANSPORTS = ("stdio", "http", "sse")
PROJECT_FILE = ".mcp.json"  # the project's servers (reviewed first: app/permissions/project.py)
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


def expand(value: str, env: Mapping[str, str], allowed: Collection[str] | None = None) -> str:
    """Replace `${VAR}` / `${VAR:-default}`; an unset variable without default becomes ''.

    `allowed` (None: every variable) limits which names are expanded; any other stays as written."""
    def one(match: re.Match) -> str:
        if allowed is not None and match.group(1) not in allowed:
            return match.group(0)
        return env.get(match.group(1), match.group(2) if match.group(2) is not None else "")

    return _VAR.sub(one, value)


def _strings(name: str, key: str, value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{where}: MCP server '{name}': '{key}' must be a list of strings")
    return value


def _table(name: str, key: str, value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float, bool)) for v in value.values()):
        raise McpConfigError(f"{where}: MCP server '{name}': '{key}' must be a table of strings")
    return {str(k): str(v) for k, v in value.items()}


def server_from_dict(name: str, data: Mapping[str, Any], *, source: str = "",
                     env: Mapping[str, str] | None = None, allow_vars: Collection[str] | None = None) -> ServerConfig:
    """Build one server from its TOML table or `mcpServers` JSON entry, expanding `${VAR}` (only the
    names in `allow_vars` when it is given: a project's file, an ACP client's finished values)."""
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
    x = lambda s: expand(s, env, allow_vars)  # noqa: E731
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


def servers_from_json(text: str, *, source: str, env: Mapping[str, str] | None = None,
                      project_env: Mapping[str, Collection[str]] | None = None) -> dict[str, ServerConfig]:
    """Parse the standard `{"mcpServers": {name: {...}}}` format (a bare mapping is accepted too).

    `project_env` given: a project's file, whose server NAME expands only `project_env[NAME]`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{source} line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise McpConfigError(f"{source}: expected a JSON object with 'mcpServers'")
    servers = data.get("mcpServers", data.get("servers", data))
    if not isinstance(servers, dict):
        raise McpConfigError(f"{source}: 'mcpServers' must be an object")
    return {name: server_from_dict(name, entry, source=source, env=env, allow_vars=_allowed(project_env, name))
            for name, entry in servers.items()}


def _allowed(project_env: Mapping[str, Collection[str]] | None, name: str) -> Collection[str] | None:
    """The variables a server may expand: all for the user's files, those config.toml names for a project's."""
    if project_env is None:
        return None
    names = project_env.get(name, ())
    return tuple(names) if isinstance(names, (list, tuple)) else ()


def load_servers(toml_servers: Mapping[str, Any] | None = None, *, workspace: Path | None = None,
                 json_files: list[Path] = (), env: Mapping[str, str] | None = None, project: Any = None,
                 project_env: Mapping[str, Collection[str]] | None = None,
                 ) -> tuple[dict[str, ServerConfig], list[str]]:
    """All configured servers and the problems found, one line each.

    Order of precedence (later wins on a name clash): config.toml `[mcp.servers]`, then the given
    JSON files, then the project's `.mcp.json` in `workspace`. That last one only when `project` (its
    `ProjectFile`, read with its review state) is accepted, parsed from the very text accepted, with
    `project_env` the variables each of its servers may expand; otherwise a line says why none of its
    servers starts and how to review it. A bad server is reported and skipped; the others still load.
    """
    from app.permissions.project import read_mcp_file

    servers: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for name, entry in (toml_servers or {}).items():
        try:
            servers[name] = server_from_dict(name, entry, source="config.toml [mcp.servers]", env=env)
        except McpConfigError as exc:
            problems.append(str(exc))
    for path in json_files:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            problems.append(f"{path}: cannot read: {exc.strerror or exc}")
            continue
        servers.update(_parse_file(text, str(path), env, None, problems))
    if workspace is not None:
        if project is None:
            project = read_mcp_file(workspace, None)  # no store: nothing is accepted
        if project.state == "accepted":
            servers.update(_parse_file(project.text, str(project.path), env, project_env or {}, problems))
        elif project.notice():
            problems.append(project.notice())
    return servers, problems


def _parse_file(text: str, source: str, env: Mapping[str, str] | None,
                project_env: Mapping[str, Collection[str]] | None, problems: list[str]) -> dict[str, ServerConfig]:
    """The servers of one mcpServers JSON text; a bad entry is reported in `problems`, the good ones kept."""
    try:
        return servers_from_json(text, source=source, env=env, project_env=project_env)
    except McpConfigError as exc:
        try:
            raw = json.loads(text)
            raw = raw.get("mcpServers", raw.get("servers", raw)) if isinstance(raw, dict) else {}
        except json.JSONDecodeError:
            raw = {}
        parsed = {}
        for name, entry in (raw.items() if isinstance(raw, dict) else ()):
            try:
                parsed[name] = server_from_dict(name, entry, source=source, env=env,
                                                allow_vars=_allowed(project_env, name))
            except McpConfigError as inner:
                problems.append(str(inner))
        if not raw:
            problems.append(str(exc))
        return parsed


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


def servers_from_app_config(config: Any, workspace: Path | None, env: Mapping[str, str] | None = None,
                            project: Any = None) -> tuple[dict[str, ServerConfig], list[str]]:
    """The servers of a loaded `app.settings.config.Config` plus the workspace's `.mcp.json` when `project` (read
    with the store, app/permissions/project.py) says the user accepted it."""
    base = Path(config.path).parent if getattr(config, "path", None) else Path.cwd()
    files = [(base / Path(f).expanduser()) for f in getattr(config, "mcp_config_files", [])]
    return load_servers(getattr(config, "mcp_servers", {}), workspace=workspace, json_files=files, env=env,
                        project=project, project_env=allowed_variables(config))




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
