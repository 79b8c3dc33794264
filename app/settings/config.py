"""Whimbrel's TOML config: load and validate it, and pick the model to talk to.

Every known key is declared once, in `SECTIONS` (the fixed sections) and `MODEL_KEYS`
(each `[models.<alias>]` table); adding a setting means adding one `Key` there and,
for a fixed section, one field on `Config`. Any mistake a user can make in the file
becomes a `ConfigError` naming the file, the line and the key.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from app.settings.toml_lines import duplicate_line, key_lines

# The model APIs a [models.X] table may name (app/providers/registry.py makes each one).
PROVIDERS = ("openai", "openai-responses", "anthropic", "google")


class ConfigError(Exception):
    """The config file cannot be used; the message says where and why, one problem a line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


# -- the schema -------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A value type: its name in error messages and the check a value must pass."""

    name: str
    check: Callable[[Any], bool]


STRING = Kind("a string", lambda v: isinstance(v, str))
INTEGER = Kind("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
NUMBER = Kind("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
BOOLEAN = Kind("true or false", lambda v: isinstance(v, bool))
TABLE = Kind("a table", lambda v: isinstance(v, dict))
STRINGS = Kind("a list of strings",
               lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
def _cidrs(value: Any) -> bool:
    import ipaddress

    try:
        return isinstance(value, list) and all(ipaddress.ip_network(x, strict=False) for x in value)
    except (TypeError, ValueError):
        return False


NETWORKS = Kind("a list of networks such as \"127.0.0.1/32\" or \"10.0.0.0/8\"", _cidrs)
SEARCH_MODE = Kind("one of 'auto', 'on', 'off'", lambda v: v in ("auto", "on", "off"))
IMAGES = Kind("one of 'auto', 'off', 'kitty', 'sixel', 'iterm', 'blocks'",
              lambda v: v in ("auto", "off", "kitty", "sixel", "iterm", "blocks"))
TOOL_MODE = Kind("one of 'native', 'code', 'both'", lambda v: v in ("native", "code", "both"))
PROVIDER = Kind("one of " + ", ".join(f"'{p}'" for p in PROVIDERS), lambda v: v in PROVIDERS)


@dataclass(frozen=True)
class Key:
    """One setting: its kind, default, and optional lower bound / required flag."""

    kind: Kind
    default: Any = None
    attr: str | None = None  # the Config attribute, when it differs from the key
    minimum: float | None = None
    required: bool = False


SECTIONS: dict[str, dict[str, Key]] = {
    "model": {
        "default": Key(STRING, attr="default_model"),
        "fallback": Key(STRINGS, default=(), attr="fallback"),
        "agent_model": Key(STRING),
        "auto_compact_pct": Key(NUMBER, 80.0, minimum=0),
    },
    "tools": {
        "bash_timeout": Key(NUMBER, 120.0, minimum=0),
        "output_limit": Key(INTEGER, 30000, minimum=1),
        # the tool catalog: tool search, and what web tools may reach
        "tool_search": Key(SEARCH_MODE, "auto"),
        "tool_search_threshold": Key(INTEGER, 20, minimum=0),
        "web_allow_hosts": Key(STRINGS, default=()),
        "web_allow_networks": Key(NETWORKS, default=()),
        "web_max_bytes": Key(INTEGER, 5_000_000, minimum=1),
        "web_timeout": Key(NUMBER, 30.0, minimum=0),
        "searxng_url": Key(STRING),
        "tavily_api_key": Key(STRING),
        "tavily_url": Key(STRING),
        "web_search_native": Key(BOOLEAN, False),  # the provider's own search where it has one
        "mode": Key(TOOL_MODE, "native", attr="tool_mode"),  # code mode
    },
    "ui": {
        "bell": Key(BOOLEAN, True),
        "notifications": Key(BOOLEAN, True),
        "theme": Key(STRING),  # a Textual theme or whimbrel-dark / whimbrel-light (checked by the app)
        "images": Key(IMAGES, "auto"),  # the image protocol inline images use (widgets/terminal_graphics.py)
    },
    "workstreams": {
        "max_open": Key(INTEGER, 20, minimum=1),
        "retention_days": Key(INTEGER, 90, minimum=0),
    },
    # what memories, recall and instruction files may take (app/memory/limits.py)
    "memory": {
        "content_kb": Key(INTEGER, 32, attr="memory_content_kb", minimum=1),
        "per_turn": Key(INTEGER, 5, attr="memory_per_turn", minimum=0),
        "chars_per_memory": Key(INTEGER, 1500, attr="memory_chars_per_memory", minimum=100),
        "results": Key(INTEGER, 20, attr="memory_results", minimum=1),
        "instruction_kb": Key(INTEGER, 64, attr="instruction_kb", minimum=1),
        "import_depth": Key(INTEGER, 5, attr="instruction_import_depth", minimum=0),
    },
    # checkpoints of each turn's changes (app/checkpoints/); kept as long as retention_days says
    "checkpoints": {
        "enabled": Key(BOOLEAN, True, attr="checkpoints_enabled"),
        "ignore": Key(STRINGS, default=(), attr="checkpoint_ignore"),  # gitignore patterns, beside .gitignore
        "max_file_mb": Key(NUMBER, 10.0, attr="checkpoint_max_file_mb", minimum=0),
    },
    # the store a team shares: PostgreSQL instead of the data dir's SQLite file (app/storage/location.py)
    "database": {
        "url": Key(STRING, attr="database_url"),
        "password_file": Key(STRING, attr="database_password_file"),
        "sslmode": Key(STRING, attr="database_sslmode"),
        "sslrootcert": Key(STRING, attr="database_sslrootcert"),
    },
    # who this instance is in a shared store (app/storage/identity.py); default user@host
    "team": {
        "name": Key(STRING, attr="team_name"),
    },
    # what every command Whimbrel starts for the model gets (app/sandbox/jail.py, docs/security.md)
    "sandbox": {
        "env_pass": Key(STRINGS, default=(), attr="sandbox_env_pass"),  # extra variables: NAME or PREFIX_*
        "max_file_mb": Key(NUMBER, 1024.0, attr="sandbox_max_file_mb", minimum=1),
        "max_processes": Key(INTEGER, 8192, attr="sandbox_max_processes", minimum=16),
    },
}

MODEL_KEYS: dict[str, Key] = {
    "provider": Key(PROVIDER, "openai"),
    "base_url": Key(STRING),
    "api_key": Key(STRING),
    "api_key_env": Key(STRING),
    "model": Key(STRING, required=True),
    "context_window": Key(INTEGER, minimum=1),
    "temperature": Key(NUMBER, minimum=0),
    "max_tokens": Key(INTEGER, minimum=1),
    "reasoning_effort": Key(STRING),
    "capabilities": Key(TABLE, default={}),  # free-form
    "price": Key(TABLE, default={}),  # USD per million tokens: input, output, cache_read, cache_write
    "tool_mode": Key(TOOL_MODE),  # native | code | both for this model (else [tools] mode)
}

MCP_KEYS: dict[str, Key] = {
    "refresh_interval": Key(NUMBER, 4 * 3600.0, attr="mcp_refresh_interval", minimum=0),
    "call_timeout": Key(NUMBER, 120.0, attr="mcp_call_timeout", minimum=0),
    "connect_timeout": Key(NUMBER, 30.0, attr="mcp_connect_timeout", minimum=0),
    # `whimbrel mcp …` runs in scripts: a server that does not answer is reported sooner than in the app
    "cli_connect_timeout": Key(NUMBER, 10.0, attr="mcp_cli_connect_timeout", minimum=0),
    "config_files": Key(STRINGS, default=(), attr="mcp_config_files"),  # extra mcpServers JSON files
    # the variables each server of a project's .mcp.json may expand, by server name (app/mcp/config.py)
    "project_env": Key(Kind("a table of lists of variable names", lambda v: isinstance(v, dict) and all(
        isinstance(x, list) and all(isinstance(n, str) for n in x) for x in v.values())), default={},
        attr="mcp_project_env"),
}
MCP_TRANSPORT = Kind("one of 'stdio', 'http', 'sse'", lambda v: v in ("stdio", "http", "sse"))
MCP_SERVER_KEYS: dict[str, Key] = {
    "type": Key(MCP_TRANSPORT),
    "command": Key(STRING),
    "args": Key(STRINGS),
    "env": Key(TABLE),
    "cwd": Key(STRING),
    "url": Key(STRING),
    "headers": Key(TABLE),
    "enabled": Key(BOOLEAN),
    "timeout": Key(NUMBER, minimum=0),
    "oauth": Key(Kind("true, false or a table", lambda v: isinstance(v, (bool, dict)))),  # app/mcp/oauth
}

# -- [agents.NAME]: external ACP agents, e.g. command = "gemini", args = ["--acp"] ----------
AGENT_KEYS: dict[str, Key] = {
    "command": Key(STRING, required=True),
    "args": Key(STRINGS, default=()),
    "env": Key(Kind("a table of strings", lambda v: isinstance(v, dict) and all(isinstance(x, str)
                                                                                 for x in v.values())), default={}),
}


@dataclass
class AgentConfig:
    """One `[agents.<name>]` entry: an ACP agent Whimbrel starts and drives in a workstream."""

    name: str
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


def _validate_agents(v: "_Validator", data: dict[str, Any]) -> dict[str, AgentConfig]:
    agents: dict[str, AgentConfig] = {}
    for name, entry in v.section((), data, "agents").items():
        if not isinstance(entry, dict):
            v.problem(("agents", name), f"[agents.{name}] must be a table, got {_type_name(entry)}")
            continue
        values = v.table(("agents", name), entry, AGENT_KEYS)
        if values.get("command"):
            agents[name] = AgentConfig(name, values["command"], list(values["args"]), dict(values["env"]))
    return agents


# [policy] (the permission engine): the settings are checked here; its rules (allow / ask /
# deny lists and [[policy.rules]]) and [hooks] are kept as written and checked by app/permissions,
# which reports a broken rule with its line and does not apply it, instead of refusing the file.
POLICY_MODES = ("ask", "accept-edits", "plan", "auto")
SANDBOX_LEVELS = ("read-only", "workspace-write", "full")
POLICY_KEYS: dict[str, Key] = {
    "mode": Key(Kind("one of " + ", ".join(f"'{m}'" for m in POLICY_MODES), lambda v: v in POLICY_MODES),
                "ask", attr="policy_mode"),
    "sandbox": Key(Kind("one of " + ", ".join(f"'{m}'" for m in SANDBOX_LEVELS), lambda v: v in SANDBOX_LEVELS),
                   "workspace-write", attr="policy_sandbox"),
    "network": Key(BOOLEAN, False, attr="policy_network"),
    "judge": Key(STRING, attr="policy_judge"),
    "judge_timeout": Key(NUMBER, 30.0, attr="policy_judge_timeout", minimum=0),
}
POLICY_RULE_KEYS = ("allow", "ask", "deny", "rules")

TOP_LEVEL = (*SECTIONS, "models", "mcp", "keymap", "agents", "policy", "hooks")


@dataclass
class ModelConfig:
    """One `[models.<alias>]` entry."""

    alias: str
    model: str
    provider: str = "openai"
    base_url: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    context_window: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    price: dict[str, float] = field(default_factory=dict)
    tool_mode: str | None = None  # code mode


@dataclass
class Config:
    """The whole validated config; a missing file gives these defaults."""

    path: Path
    models: dict[str, ModelConfig] = field(default_factory=dict)
    default_model: str | None = None
    fallback: list[str] = field(default_factory=list)
    agent_model: str | None = None
    auto_compact_pct: float = 80.0
    bash_timeout: float = 120.0
    output_limit: int = 30000
    # the tool catalog ([tools] tool_search*, web_*)
    tool_search: str = "auto"
    tool_search_threshold: int = 20
    web_allow_hosts: tuple[str, ...] = ()
    web_allow_networks: tuple[str, ...] = ()
    web_max_bytes: int = 5_000_000
    web_timeout: float = 30.0
    searxng_url: str | None = None
    tavily_api_key: str | None = None
    tavily_url: str | None = None
    web_search_native: bool = False
    tool_mode: str = "native"  # [tools] mode: native | code | both
    bell: bool = True
    notifications: bool = True
    theme: str | None = None
    images: str = "auto"
    max_open: int = 20
    retention_days: int = 90
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # [mcp.servers.<name>], as written
    mcp_refresh_interval: float = 4 * 3600.0
    mcp_call_timeout: float = 120.0
    mcp_connect_timeout: float = 30.0
    mcp_cli_connect_timeout: float = 10.0
    mcp_config_files: list[str] = field(default_factory=list)
    mcp_project_env: dict[str, list[str]] = field(default_factory=dict)  # [mcp.project_env]
    memory_content_kb: int = 32  # [memory] (app/memory/limits.py)
    memory_per_turn: int = 5
    memory_chars_per_memory: int = 1500
    memory_results: int = 20
    instruction_kb: int = 64
    instruction_import_depth: int = 5
    checkpoints_enabled: bool = True  # [checkpoints]
    checkpoint_ignore: list[str] = field(default_factory=list)
    checkpoint_max_file_mb: float = 10.0
    team_name: str | None = None  # [team] name: who this instance is (app/storage/identity.py)
    database_url: str | None = None  # [database]: a PostgreSQL store (app/storage/location.py)
    database_password_file: str | None = None
    database_sslmode: str | None = None
    database_sslrootcert: str | None = None
    sandbox_env_pass: list[str] = field(default_factory=list)  # [sandbox]
    sandbox_max_file_mb: float = 1024.0
    sandbox_max_processes: int = 8192
    keymap: dict[str, str] = field(default_factory=dict)  # [keymap]: binding id -> keys (app/tui/commands/keymap.py)
    agents: dict[str, AgentConfig] = field(default_factory=dict)  # [agents.<name>]
    policy_mode: str = "ask"
    policy_sandbox: str = "workspace-write"
    policy_network: bool = False
    policy_judge: str | None = None
    policy_judge_timeout: float = 30.0  # seconds the judge's advisory verdict may take
    policy_rules: dict[str, Any] = field(default_factory=dict)  # allow/ask/deny/rules, as written
    hooks: dict[str, Any] = field(default_factory=dict)  # [hooks], Claude Code's shape


# -- validation -------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    names = {str: "string", int: "integer", float: "float", list: "array", dict: "table"}
    return next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)


def _label(path: tuple[str, ...]) -> str:
    return f"[{'.'.join(path)}]" if path else "the top level"


class _Validator:
    """Collects problems, each located by the line of the key it concerns."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = key_lines(text)
        self._found: list[tuple[int, str]] = []

    @property
    def problems(self) -> list[str]:
        """The problems found, in file order (those without a line last)."""
        return [text for _, text in sorted(self._found, key=lambda p: p[0])]

    def problem(self, where: tuple[str, ...], message: str) -> None:
        line = next((self.lines[where[:n]] for n in range(len(where), 0, -1)
                     if where[:n] in self.lines), None)
        at = f" line {line}" if line else ""
        self._found.append((line or 10**9, f"{self.path}{at}: {message}"))

    def table(self, where: tuple[str, ...], data: Mapping[str, Any],
              schema: Mapping[str, Key]) -> dict[str, Any]:
        """Check one table against its schema; return {key: value-or-default}."""
        self.unknown_keys(where, data, schema)
        values: dict[str, Any] = {}
        for name, key in schema.items():
            if name not in data:
                if key.required:
                    self.problem(where, f"{_label(where)} is missing the required key '{name}'")
                values[name] = key.default
                continue
            value = data[name]
            if not key.kind.check(value):
                got = f"'{value}'" if key.kind is PROVIDER and isinstance(value, str) \
                    else _type_name(value)
                self.problem(where + (name,),
                             f"{_label(where)} {name} must be {key.kind.name}, got {got}")
            elif key.minimum is not None and value < key.minimum:
                self.problem(where + (name,),
                             f"{_label(where)} {name} must be at least {key.minimum:g}, "
                             f"got {value}")
            values[name] = value
        return values

    def unknown_keys(self, where: tuple[str, ...], data: Mapping[str, Any],
                     known: Mapping[str, Any] | tuple[str, ...]) -> None:
        for name in data:
            if name in known:
                continue
            close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else \
                f" (known keys: {', '.join(known)})"
            self.problem(where + (name,), f"unknown key '{name}' in {_label(where)}{hint}")

    def section(self, where: tuple[str, ...], data: Mapping[str, Any], name: str) -> dict:
        """`data[name]` when it is a table (or absent: {}); a problem otherwise."""
        value = data.get(name, {})
        if isinstance(value, dict):
            return value
        self.problem(where + (name,), f"{_label(where + (name,))} must be a table, "
                                      f"got {_type_name(value)}")
        return {}


def _validate(path: Path, text: str, data: dict[str, Any]) -> Config:
    v = _Validator(path, text)
    v.unknown_keys((), data, TOP_LEVEL)
    settings: dict[str, Any] = {}
    for section, schema in SECTIONS.items():
        values = v.table((section,), v.section((), data, section), schema)
        settings.update({key.attr or name: values[name] for name, key in schema.items()})
    models: dict[str, ModelConfig] = {}
    for alias, entry in v.section((), data, "models").items():
        if not isinstance(entry, dict):
            v.problem(("models", alias), f"[models.{alias}] must be a table, "
                                         f"got {_type_name(entry)}")
            continue
        values = v.table(("models", alias), entry, MODEL_KEYS)
        models[alias] = ModelConfig(alias=alias, **{**values,
                                                    "capabilities": dict(values["capabilities"]),
                                                    "price": dict(values["price"])})
    _check_references(v, models, settings)
    _validate_mcp(v, data, settings)
    settings["keymap"] = _validate_keymap(v, data)
    settings["agents"] = _validate_agents(v, data)
    _validate_policy(v, data, settings)
    if v.problems:
        raise ConfigError(v.problems)
    settings["fallback"] = list(settings["fallback"])
    settings["web_allow_hosts"] = tuple(settings["web_allow_hosts"])
    settings["web_allow_networks"] = tuple(settings["web_allow_networks"])
    settings["mcp_config_files"] = list(settings["mcp_config_files"])
    settings["checkpoint_ignore"] = list(settings["checkpoint_ignore"])
    settings["sandbox_env_pass"] = list(settings["sandbox_env_pass"])
    return Config(path=path, models=models, **settings)


# -- [keymap]: binding id = "keys"; the ids are checked by the app (app/tui/commands/keymap.py)
def _validate_keymap(v: _Validator, data: dict[str, Any]) -> dict[str, str]:
    keymap = {}
    for binding_id, keys in v.section((), data, "keymap").items():
        if isinstance(keys, str):
            keymap[binding_id] = keys
        else:
            v.problem(("keymap", binding_id), f"[keymap] {binding_id} must be a string of keys such as "
                                              f'"ctrl+k" or "f5,ctrl+k", got {_type_name(keys)}')
    return keymap


def _validate_mcp(v: _Validator, data: dict[str, Any], settings: dict[str, Any]) -> None:
    """[mcp] settings and each [mcp.servers.<name>] table (names with '__' are refused)."""
    section = v.section((), data, "mcp")
    values = v.table(("mcp",), {k: val for k, val in section.items() if k != "servers"}, MCP_KEYS)
    settings.update({key.attr or name: values[name] for name, key in MCP_KEYS.items()})
    servers: dict[str, dict[str, Any]] = {}
    for name, entry in v.section(("mcp",), section, "servers").items():
        where = ("mcp", "servers", name)
        if not isinstance(entry, dict):
            v.problem(where, f"[mcp.servers.{name}] must be a table, got {_type_name(entry)}")
            continue
        if "__" in name:
            v.problem(where, f"[mcp.servers.{name}]: server names cannot contain '__' (Whimbrel names MCP "
                             f"tools mcp__<server>__<tool>); rename it, e.g. '{name.replace('__', '_')}'")
            continue
        v.table(where, entry, MCP_SERVER_KEYS)
        if isinstance(entry.get("oauth"), dict):
            from app.settings.mcp_oauth import OAuthConfigError, parse_oauth

            try:
                parse_oauth(name, entry["oauth"], f"[mcp.servers.{name}]")
            except OAuthConfigError as error:
                v.problem(where + ("oauth",), str(error).split(": ", 1)[1])
        kind = entry.get("type", "http" if "url" in entry and "command" not in entry else "stdio")
        if kind == "stdio" and "command" not in entry:
            v.problem(where, f"[mcp.servers.{name}] needs 'command' (or type = \"http\"/\"sse\" with 'url')")
        if kind in ("http", "sse") and "url" not in entry:
            v.problem(where, f"[mcp.servers.{name}] (type = \"{kind}\") needs 'url'")
        servers[name] = dict(entry)
    settings["mcp_servers"] = servers


def _validate_policy(v: _Validator, data: dict[str, Any], settings: dict[str, Any]) -> None:
    """[policy] settings; its rule lists and [hooks] are kept for app/permissions to check."""
    section = v.section((), data, "policy")
    values = v.table(("policy",), {k: val for k, val in section.items() if k not in POLICY_RULE_KEYS}, POLICY_KEYS)
    settings.update({key.attr or name: values[name] for name, key in POLICY_KEYS.items()})
    settings["policy_rules"] = {k: section[k] for k in POLICY_RULE_KEYS if k in section}
    settings["hooks"] = v.section((), data, "hooks")


def _check_references(v: _Validator, models: dict[str, ModelConfig],
                      settings: dict[str, Any]) -> None:
    """[model] default / fallback / agent_model must name models defined in [models]."""
    known = ", ".join(models) or "none defined"
    refs = [("default", settings["default_model"]), ("agent_model", settings["agent_model"])]
    fallback = settings["fallback"] if STRINGS.check(settings["fallback"]) else []
    refs += [("fallback", alias) for alias in fallback]
    for key, alias in refs:
        if isinstance(alias, str) and alias not in models:
            v.problem(("model", key), f"[model] {key} names '{alias}', which is not a model "
                                      f"defined under [models] (known: {known})")


# -- loading ----------------------------------------------------------------------------


def load_config(path: Path, named_by: str | None = None) -> Config:
    """Read and validate the config at `path`; a missing file yields the defaults, unless the
    user named it (`named_by`, e.g. "--config": see paths.chosen_config_path), which is an error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if named_by:
            raise ConfigError([f"{path}: no such config file (named by {named_by})"]) from None
        return Config(path=path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"{path}: cannot read the config file: {exc}"]) from None
    return _validate(path, text, _parsed(path, text))


def _parsed(path: Path, text: str) -> dict:
    """The TOML in `text` as plain data. The standard library's parser reads it (tomlkit costs ~0.7 MB
    and a slower parse on every start); only text it refuses goes to tomlkit, for its wording and a line."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        pass
    import tomlkit
    from tomlkit.exceptions import ParseError, TOMLKitError

    try:
        return tomlkit.parse(text).unwrap()
    except ParseError as exc:
        if _ends_early(exc):
            last = _last_line(text)
            raise ConfigError([f"{path} line {last}: invalid TOML: the file ends early, in the middle of a "
                               f"value or [table] header (an unclosed bracket, brace or quote?)"]) from None
        raise ConfigError([f"{path} line {exc.line} column {exc.col}: invalid TOML: "
                           f"{_parse_reason(exc)}"]) from None
    except TOMLKitError as exc:  # a repeated key, which tomlkit reports without a line
        line = duplicate_line(text)
        at = f" line {line}" if line else ""
        raise ConfigError([f"{path}{at}: invalid TOML: {exc}"]) from None


def _ends_early(exc: Exception) -> bool:
    """tomlkit's way of saying the text ran out: an end-of-file error, or the NUL it reads past the end."""
    from tomlkit.exceptions import UnexpectedEofError

    return isinstance(exc, UnexpectedEofError) or "'\\x00'" in str(exc)


def _last_line(text: str) -> int:
    """The number of the file's last line that holds anything."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return max(1, len(lines))


def _parse_reason(exc: Exception) -> str:
    """tomlkit's message without its own trailing ' at line L col C'."""
    return re.sub(r"\s+at line \d+ col \d+$", "", str(exc))
