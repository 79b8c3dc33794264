"""MCP server configuration: TOML tables, mcpServers JSON, .mcp.json, ${VAR}, env isolation, names."""

from __future__ import annotations

import json

import pytest

from app.settings.config import ConfigError, load_config
from app.mcp.config import (
    McpConfigError,
    ServerConfig,
    expand,
    load_servers,
    parse_server_spec,
    server_from_dict,
    servers_from_app_config,
    servers_from_json,
    stdio_environment,
)


def accepted_mcp_file(workspace):
    """The workspace's .mcp.json, accepted in a real store as it is now."""
    from app.permissions.project import accept, read_mcp_file
    from app.storage.store import Store

    engine = Store(workspace / "data" / "whimbrel.db").engine
    found = read_mcp_file(workspace, engine)
    accept(engine, found.path, found.text)
    return read_mcp_file(workspace, engine)


def test_expand_variables_with_defaults():
    env = {"HOME": "/home/u", "TOKEN": "t0k"}
    assert expand("${HOME}/x ${TOKEN} ${MISSING} ${MISSING:-dflt}", env) == "/home/u/x t0k  dflt"


def test_stdio_and_http_entries_are_expanded():
    env = {"KEY": "secret", "DIR": "/srv"}
    stdio = server_from_dict("files", {"command": "run-${KEY}", "args": ["--root", "${DIR}"],
                                       "env": {"API_KEY": "${KEY}"}, "cwd": "${DIR}"}, env=env)
    assert (stdio.transport, stdio.command, stdio.args, stdio.env, stdio.cwd) == \
        ("stdio", "run-secret", ["--root", "/srv"], {"API_KEY": "secret"}, "/srv")
    http = server_from_dict("web", {"type": "http", "url": "https://h/${KEY}/mcp",
                                    "headers": {"Authorization": "Bearer ${KEY}"}}, env=env)
    assert (http.transport, http.url, http.headers) == ("http", "https://h/secret/mcp",
                                                         {"Authorization": "Bearer secret"})
    assert server_from_dict("s", {"type": "sse", "url": "http://h/sse"}, env=env).transport == "sse"
    assert server_from_dict("u", {"url": "http://h/mcp"}, env=env).transport == "http"  # inferred


@pytest.mark.parametrize("name", ["a__b", "__x", "mcp__time"])
def test_double_underscore_names_are_rejected_with_a_message(name):
    with pytest.raises(McpConfigError, match="contains '__'"):
        server_from_dict(name, {"command": "x"})


def test_bad_entries_name_the_problem():
    with pytest.raises(McpConfigError, match="needs a 'command'"):
        server_from_dict("s", {})
    with pytest.raises(McpConfigError, match="type must be one of"):
        server_from_dict("s", {"type": "carrier-pigeon", "url": "http://x"})
    with pytest.raises(McpConfigError, match="needs a 'url'"):
        server_from_dict("s", {"type": "http"})
    with pytest.raises(McpConfigError, match="unknown key"):
        server_from_dict("s", {"command": "x", "comand": "y"})


def test_mcp_servers_json_and_project_file(tmp_path):
    text = json.dumps({"mcpServers": {"time": {"command": "mcp-server-time"},
                                      "remote": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}})
    servers = servers_from_json(text, source="x.json")
    assert set(servers) == {"time", "remote"} and servers["remote"].transport == "sse"
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "time": {"command": "project-time"}, "bad__name": {"command": "x"}}}))
    merged, problems = load_servers({"time": {"command": "toml-time"}, "git": {"command": "g"}},
                                    workspace=tmp_path, project=accepted_mcp_file(tmp_path))
    assert merged["time"].command == "project-time"  # the project file wins, once accepted
    assert merged["git"].command == "g"
    assert len(problems) == 1 and "bad__name" in problems[0] and "__" in problems[0]


def test_invalid_json_is_reported_with_line(tmp_path):
    (tmp_path / ".mcp.json").write_text("{\n  oops\n}")
    servers, problems = load_servers({}, workspace=tmp_path)
    assert servers == {} and "line 2" in problems[0] and "none of its MCP servers start" in problems[0]


def test_stdio_environment_is_minimal(monkeypatch):
    env = {"PATH": "/bin", "HOME": "/h", "LANG": "C", "OPENAI_API_KEY": "sk-leak", "AWS_SECRET": "x"}
    config = ServerConfig("s", command="x", env={"ONLY_THIS": "1"})
    assert stdio_environment(config, env) == {"PATH": "/bin", "HOME": "/h", "LANG": "C", "ONLY_THIS": "1"}


def test_cli_server_specs():
    configured = {"time": ServerConfig("time", command="mcp-server-time")}
    assert parse_server_spec("time", configured) is configured["time"]
    stdio = parse_server_spec("stdio:mcp-server-time --local-timezone 'Europe/Paris'", configured)
    assert (stdio.command, stdio.args) == ("mcp-server-time", ["--local-timezone", "Europe/Paris"])
    assert parse_server_spec("http://127.0.0.1:3001/mcp", configured).transport == "http"
    assert parse_server_spec("https://example.com/sse", configured).transport == "sse"
    with pytest.raises(McpConfigError, match="unknown MCP server 'nope'"):
        parse_server_spec("nope", configured)


def test_config_toml_section(tmp_path, monkeypatch):
    monkeypatch.setenv("WHIM_TEST_TOKEN", "abc")
    path = tmp_path / "config.toml"
    path.write_text('[mcp]\nrefresh_interval = 60\n\n[mcp.servers.time]\ncommand = "mcp-server-time"\n'
                    'args = ["--local-timezone", "UTC"]\n\n[mcp.servers.web]\ntype = "http"\n'
                    'url = "https://example.com/mcp"\nheaders = { Authorization = "Bearer ${WHIM_TEST_TOKEN}" }\n')
    config = load_config(path)
    assert config.mcp_refresh_interval == 60
    servers, problems = servers_from_app_config(config, tmp_path)
    assert problems == [] and servers["web"].headers == {"Authorization": "Bearer abc"}
    assert servers["time"].args == ["--local-timezone", "UTC"]


def test_config_toml_rejects_bad_servers_with_lines(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[mcp.servers.a__b]\ncommand = "x"\n\n[mcp.servers.web]\ntype = "http"\n'
                    '\n[mcp.servers.t]\ncommand = "x"\nport = 3\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    problems = info.value.problems
    assert "line 1" in problems[0] and "cannot contain '__'" in problems[0]
    assert "line 4" in problems[1] and "needs 'url'" in problems[1]
    assert "line 9" in problems[2] and "unknown key 'port'" in problems[2]
