"""config.toml edits keep the user's comments and layout, and the result loads with the normal loader."""

from __future__ import annotations

from app.settings.config import load_config
from app.settings.config_edit import remove_mcp_server, set_mcp_server_enabled, write_mcp_server
from app.mcp.config import McpConfigError, entry_from_form

import pytest

ORIGINAL = """\
# my settings
[model]
default = "x"  # the default

[models.x]
model = "m"

[mcp]
call_timeout = 60 # seconds

# the time server
[mcp.servers.time]
command = "mcp-server-time"
"""


def test_add_disable_enable_and_remove_servers_keeping_comments(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(ORIGINAL)
    write_mcp_server(path, "git", {"command": "mcp-server-git", "args": ["--repository", "."]})
    write_mcp_server(path, "web", {"type": "http", "url": "http://127.0.0.1:1/mcp"})
    assert path.read_text().startswith(ORIGINAL)
    config = load_config(path)
    assert config.mcp_servers["git"] == {"command": "mcp-server-git", "args": ["--repository", "."]}
    assert config.mcp_servers["web"]["type"] == "http" and config.mcp_call_timeout == 60

    assert set_mcp_server_enabled(path, "time", False)
    assert load_config(path).mcp_servers["time"]["enabled"] is False
    assert set_mcp_server_enabled(path, "time", True)
    assert "enabled" not in load_config(path).mcp_servers["time"]

    assert remove_mcp_server(path, "git") and not remove_mcp_server(path, "nope")
    text = path.read_text()
    assert "mcp-server-git" not in text and "# the time server" in text and "# seconds" in text
    assert set(load_config(path).mcp_servers) == {"time", "web"}


def test_first_server_in_a_missing_file(tmp_path):
    path = tmp_path / "sub" / "config.toml"
    assert not remove_mcp_server(path, "time") and not set_mcp_server_enabled(path, "time", False)
    write_mcp_server(path, "time", {"command": "mcp-server-time"})
    assert load_config(path).mcp_servers == {"time": {"command": "mcp-server-time"}}
    assert list(path.parent.iterdir()) == [path]  # no temp file left behind


def test_entry_from_form_uses_the_loaders_rules():
    entry, config = entry_from_form("time", "stdio", "uvx mcp-server-time --local-timezone 'Europe/Oslo'",
                                    env_text='TOKEN=${MY_TOKEN} MODE="a b"')
    assert entry == {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Europe/Oslo"],
                     "env": {"TOKEN": "${MY_TOKEN}", "MODE": "a b"}}
    assert config.command == "uvx" and config.source == "config.toml [mcp.servers]"
    entry, config = entry_from_form("web", "sse", url=" https://example.com/sse ")
    assert entry == {"type": "sse", "url": "https://example.com/sse"} and config.transport == "sse"
    for args, words in [(("a__b", "stdio", "x"), "contains '__'"), (("x y", "stdio", "x"), "may only contain"),
                        (("x", "stdio", ""), "needs a 'command'"), (("x", "http", "", "ftp://h"), "http:// or https://"),
                        (("x", "stdio", "cmd", "", "NOEQUALS"), "KEY=VALUE"), (("x", "stdio", "'unclosed"), "cannot be split")]:
        with pytest.raises(McpConfigError, match=words):
            entry_from_form(*args)


TWO_SERVERS = """\
[mcp.servers.time]
command = "mcp-server-time"

# the git server, kept on
[mcp.servers.git]
command = "mcp-server-git"
"""


def test_disabling_puts_the_key_in_its_own_table_before_the_next_tables_comment(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(TWO_SERVERS)
    assert set_mcp_server_enabled(path, "time", False)
    assert path.read_text() == TWO_SERVERS.replace('"mcp-server-time"\n', '"mcp-server-time"\nenabled = false\n')
    servers = load_config(path).mcp_servers
    assert servers["time"]["enabled"] is False and "enabled" not in servers["git"]
    assert set_mcp_server_enabled(path, "time", True)
    assert path.read_text() == TWO_SERVERS


def test_adding_then_removing_a_server_leaves_the_file_as_it_was(tmp_path):
    path = tmp_path / "config.toml"
    for original in (TWO_SERVERS, ORIGINAL, "[ui]\nbell = true\n"):
        path.write_text(original)
        write_mcp_server(path, "web", {"type": "http", "url": "http://127.0.0.1:1/mcp"})
        assert load_config(path).mcp_servers["web"]["type"] == "http"
        assert remove_mcp_server(path, "web")
        assert path.read_text() == original


def test_entry_from_form_with_headers_and_a_bearer_token():
    entry, config = entry_from_form("web", "http", url="https://example.com/mcp",
                                    headers_text=" X-Api-Key: ${KEY} ; X-Team: birds and bees ", bearer="${TOKEN}")
    assert entry == {"type": "http", "url": "https://example.com/mcp",
                     "headers": {"X-Api-Key": "${KEY}", "X-Team": "birds and bees", "Authorization": "Bearer ${TOKEN}"}}
    assert config.headers["X-Team"] == "birds and bees"
    entry, _ = entry_from_form("web", "sse", url="https://example.com/sse", bearer="Bearer abc")
    assert entry["headers"] == {"Authorization": "Bearer abc"}
    for headers, bearer, words in [("X-Team", "", "headers are 'Name: value'"), ("Bad Name: x", "", "Name: value"),
                                   ("X-Empty:", "", "Name: value"), ("Authorization: Basic x", "t", "not both"),
                                   ("", "two words", "no spaces")]:
        with pytest.raises(McpConfigError, match=words):
            entry_from_form("web", "http", url="https://example.com/mcp", headers_text=headers, bearer=bearer)
