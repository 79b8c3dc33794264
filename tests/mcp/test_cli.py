"""`whimbrel mcp ...` as a script uses it: subprocesses, JSON on stdout, exit codes, stderr messages."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from app.mcp.cli import parse_pairs
from tests.mcp.conftest import needs_node, require, server_path
from tests.subprocesses import stopped_at_exit

ROOT = Path(__file__).resolve().parents[2]


def whimbrel(*args: str, config: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": server_path(), "WHIMBREL_CONFIG": str(config)}
    return subprocess.run([sys.executable, "-m", "app.cli", "mcp", *args], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(ROOT)}, cwd=cwd, timeout=90)


def test_key_value_parsing():
    assert parse_pairs(["a=1", "b=x y", "c={\"k\": [1]}", "d=true", "e="]) == \
        {"a": 1, "b": "x y", "c": {"k": [1]}, "d": True, "e": ""}


def test_list_tools_and_call_through_config_and_stdio_spec(tmp_path):
    require("mcp-server-time")
    config = tmp_path / "config.toml"
    config.write_text('[mcp.servers.time]\ncommand = "mcp-server-time"\nargs = ["--local-timezone", "UTC"]\n\n'
                      '[mcp.servers.broken]\ncommand = "whimbrel-no-such-command"\n')
    listed = whimbrel("--timeout", "30", "list", config=config, cwd=tmp_path)
    assert listed.returncode == 1, listed.stderr  # a broken server: scripts can tell
    assert "whimbrel mcp: broken: " in listed.stderr and "time:" not in listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["time"]["status"] == "ready" and rows["time"]["tools"] == 2
    # while `list` waits for the slow server, the broken one may have failed often enough to open its breaker
    assert rows["broken"]["status"] in ("failed", "circuit-open") and "command not found" in rows["broken"]["reason"]

    called = whimbrel("call", "time", "convert_time", "source_timezone=UTC", "time=12:00",
                      "--json", '{"target_timezone": "Asia/Tokyo"}', config=config, cwd=tmp_path)
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert result["isError"] is False and "21:00" in result["text"]

    tools = whimbrel("tools", "stdio:mcp-server-time --local-timezone UTC", config=config, cwd=tmp_path)
    assert tools.returncode == 0, tools.stderr
    listed_tools = json.loads(tools.stdout)
    assert [t["name"] for t in listed_tools] == ["get_current_time", "convert_time"]
    assert listed_tools[0]["whimbrelName"] == "mcp__stdio__get_current_time"


def test_errors_exit_non_zero_with_a_message(tmp_path):
    require("mcp-server-time")
    config = tmp_path / "config.toml"
    config.write_text("")
    bad_tool = whimbrel("call", "stdio:mcp-server-time", "get_current_time", "timezone=Not/AZone",
                        config=config, cwd=tmp_path)
    assert bad_tool.returncode == 1 and "reported an error" in bad_tool.stderr
    assert json.loads(bad_tool.stdout)["isError"] is True
    missing = whimbrel("tools", "stdio:whimbrel-no-such-command", config=config, cwd=tmp_path)
    assert missing.returncode == 1 and "command not found: whimbrel-no-such-command" in missing.stderr
    assert missing.stdout == ""
    unknown = whimbrel("tools", "nope", config=config, cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown MCP server 'nope'" in unknown.stderr


def test_a_tool_that_needs_a_browser_step_says_so_in_a_script(tmp_path):
    """No one can be asked from a script: the link is printed instead of pretending a user declined."""
    server = f"stdio:{sys.executable} {ROOT / 'tests' / 'mcp' / 'browser_step_server.py'}"
    config = tmp_path / "empty.toml"
    config.write_text("")
    called = whimbrel("call", server, "private_files", config=config, cwd=tmp_path)
    assert called.returncode == 1
    assert "needs the user to open http://127.0.0.1:" in called.stderr
    assert "/authorize?id=auth-1 before tools/call private_files, but no one was asked" in called.stderr
    assert "open it in a browser and try again" in called.stderr




def hung_server_code() -> tuple[str, str]:
    """Python code for a server that never answers the handshake, and the token that finds its process."""
    token = f"whimbrel-hung-{uuid.uuid4().hex}"
    return f"import time; time.sleep(999)  # {token}", token


def processes_running(token: str) -> list[str]:
    """Command lines of live (not zombie) processes anywhere whose command line contains `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if token in command and state != "Z":
            found.append(command)
    return found


def test_a_hung_server_times_out_quickly_and_list_exits_1(tmp_path):
    """The handshake deadline comes from `[mcp] cli_connect_timeout`; past it the server is reported
    as timed out (not `connecting` with no reason), and list exits 1 listing every server. (How long
    it takes is a benchmark's business; the reason naming the 1 s deadline shows which one applied.)"""
    config = tmp_path / "config.toml"
    code, token = hung_server_code()
    config.write_text(f'[mcp]\ncli_connect_timeout = 1\n\n[mcp.servers.hung]\ncommand = "{sys.executable}"\n'
                      f'args = ["-c", "{code}"]\n\n[mcp.servers.off]\ncommand = "x"\n'
                      f'enabled = false\n')
    listed = whimbrel("list", config=config, cwd=tmp_path)
    assert processes_running(token) == [], "the hung server outlived the CLI"
    assert listed.returncode == 1
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["hung"]["status"] == "failed"
    assert rows["hung"]["reason"] == "handshake timed out (no answer within 1s)"
    assert rows["off"]["status"] == "disabled"
    assert "hung: failed: handshake timed out" in listed.stderr and "off:" not in listed.stderr


def test_tools_on_a_hung_server_says_it_timed_out(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("")
    code, token = hung_server_code()
    tools = whimbrel("--timeout", "1", "tools", f"stdio:{sys.executable} -c '{code}'", config=config, cwd=tmp_path)
    assert processes_running(token) == [], "the hung server (and its wrapper shell) outlived the CLI"
    assert tools.returncode == 1 and tools.stdout == ""
    assert "handshake timed out (no answer within 1s)" in tools.stderr
    assert "still connecting" not in tools.stderr


def test_the_cli_handshake_default_is_short_and_documented(tmp_path):
    from app.settings.config import load_config
    from app.mcp.cli import build_parser

    config = tmp_path / "config.toml"
    config.write_text("[mcp]\nrefresh_interval = 60\n")
    loaded = load_config(config)
    assert loaded.mcp_cli_connect_timeout == 10.0 < loaded.mcp_connect_timeout
    assert "handshake default: 10" in " ".join(build_parser().format_help().split())


def test_a_named_config_file_that_is_missing_exits_2(tmp_path):
    missing = tmp_path / "missing.toml"
    listed = whimbrel("list", config=missing, cwd=tmp_path)  # through WHIMBREL_CONFIG
    assert listed.returncode == 2 and listed.stdout == ""
    assert f"{missing}: no such config file (named by $WHIMBREL_CONFIG)" in listed.stderr
    flagged = whimbrel("--config", str(missing), "list", config=missing, cwd=tmp_path)
    assert flagged.returncode == 2 and "(named by --config)" in flagged.stderr


@needs_node
def test_resources_templates_prompts_and_ping_of_server_everything(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[mcp.servers.everything]\ncommand = "mcp-server-everything"\nargs = ["stdio"]\n')
    prompts = whimbrel("prompts", "everything", config=config, cwd=tmp_path)
    assert prompts.returncode == 0, prompts.stderr
    names = [p["name"] for p in json.loads(prompts.stdout)]
    assert "simple-prompt" in names and "args-prompt" in names
    resources = whimbrel("resources", "everything", config=config, cwd=tmp_path)
    assert resources.returncode == 0, resources.stderr
    assert all(r["uri"].startswith("demo://") for r in json.loads(resources.stdout))
    templates = whimbrel("templates", "everything", config=config, cwd=tmp_path)
    assert templates.returncode == 0, templates.stderr
    assert any("{" in t["uriTemplate"] for t in json.loads(templates.stdout))
    ping = whimbrel("ping", "everything", config=config, cwd=tmp_path)
    assert ping.returncode == 0, ping.stderr
    answer = json.loads(ping.stdout)
    assert answer["server"] == "everything" and answer["ms"] >= 0
    assert "Warning" not in ping.stderr  # (ping is legacy here, and said nothing about it)


def test_bad_arguments_are_usage_errors_before_any_server_starts(tmp_path):
    config = tmp_path / "config.toml"
    marker = tmp_path / "started"
    # a "server" that would leave a file behind if it were ever started
    config.write_text(f'[mcp.servers.dead]\ncommand = "sh"\nargs = ["-c", "touch {marker}; exit 1"]\n')
    for args, words in [(("call", "dead", "x", "badpair"), "expected key=value, got 'badpair'"),
                        (("call", "dead", "x", "--json", "{nope"), "--json is not valid JSON"),
                        (("call", "dead", "x", "--json", "[1]"), "--json must be a JSON object"),
                        (("prompt", "dead", "p", "=x"), "expected key=value")]:
        done = whimbrel(*args, config=config, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr and done.stdout == ""
    assert not marker.exists()


def test_an_unbalanced_quote_in_a_stdio_spec_is_a_usage_error(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("")
    done = whimbrel("tools", "stdio:echo 'abc", config=config, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the command line \"echo 'abc\" cannot be split like a shell would: No closing quotation" in done.stderr


def test_a_stdio_server_that_exits_says_its_status_and_last_stderr_lines(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("")
    script = "echo starting >&2; echo 'error: the database file is missing' >&2; exit 3"
    done = whimbrel("tools", f"stdio:sh -c \"{script}\"", config=config, cwd=tmp_path)
    assert done.returncode == 1
    assert ("the server process exited with status 3; its stderr ended with: starting | "
            "error: the database file is missing") in done.stderr
    assert "-32000" not in done.stderr


def test_a_stdio_server_killed_by_a_signal_says_which(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("")
    done = whimbrel("tools", 'stdio:sh -c "echo going >&2; kill -KILL $$"', config=config, cwd=tmp_path)
    assert done.returncode == 1
    assert "the server process was killed by SIGKILL (status 137); its stderr ended with: going" in done.stderr


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_during_a_call_ends_the_server_and_exits_128_plus_its_number(tmp_path, sig, code):
    """The server runs in its own process group, so `timeout` cannot reach it: whimbrel must end it."""
    config = tmp_path / "config.toml"
    config.write_text("")
    pid_file = tmp_path / "server.pid"
    env = {**os.environ, "PATH": server_path(), "WHIMBREL_CONFIG": str(config), "PYTHONPATH": str(ROOT)}
    spec = f"stdio:{sys.executable} {ROOT / 'tests' / 'mcp' / 'sleepy_server.py'} {pid_file}"
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "mcp", "call", spec, "nap"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with stopped_at_exit(proc):
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the tool call never started"
            time.sleep(0.05)
        server_pid = int(pid_file.read_text())
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert out == "" and "Traceback" not in err
    deadline = time.monotonic() + 10  # the server was signalled before whimbrel exited; its reaping may lag
    while _alive(server_pid):
        assert time.monotonic() < deadline, f"the server ({server_pid}) outlived whimbrel mcp call"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Whether `pid` is still a live process (a zombie, dead but not yet reaped by its parent, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@needs_node
def test_call_read_and_prompt_print_what_the_server_sent(tmp_path):
    """server-everything (2025-11-25) sends neither `isError` nor `resultType` with a result, nor `ttlMs` or
    `cacheScope` with a resource: the SDK's models fill them in, and the JSON must not show them."""
    config = tmp_path / "config.toml"
    config.write_text('[mcp.servers.everything]\ncommand = "mcp-server-everything"\nargs = ["stdio"]\n')
    called = whimbrel("call", "everything", "echo", "message=hi", config=config, cwd=tmp_path)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == {"content": [{"type": "text", "text": "Echo: hi"}], "text": "Echo: hi"}
    uri = "demo://resource/static/document/architecture.md"
    read = whimbrel("read", "everything", uri, config=config, cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    answer = json.loads(read.stdout)
    assert list(answer) == ["contents"] and set(answer["contents"][0]) == {"uri", "mimeType", "text"}
    prompt = whimbrel("prompt", "everything", "simple-prompt", config=config, cwd=tmp_path)
    assert prompt.returncode == 0, prompt.stderr
    assert "resultType" not in prompt.stdout and json.loads(prompt.stdout)["messages"]


def test_a_call_that_times_out_leaves_no_server_behind(tmp_path):
    """The server was started before the SDK was imported (app/mcp/prespawn.py); when the call gives up, the
    server, still busy in its tool, is ended with its process group all the same."""
    config = tmp_path / "config.toml"
    config.write_text("")
    pid_file = tmp_path / "server.pid"
    spec = f"stdio:{sys.executable} {ROOT / 'tests' / 'mcp' / 'sleepy_server.py'} {pid_file}"
    done = whimbrel("--timeout", "15", "call", spec, "nap", config=config, cwd=tmp_path)  # handshake too: loaded CI
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    server_pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(server_pid):
        assert time.monotonic() < deadline, f"the server ({server_pid}) outlived whimbrel mcp call"
        time.sleep(0.05)


def test_list_starts_a_failing_server_once(tmp_path):
    """`list` is one look: a server whose command is missing is started once and reported, not started
    again on the breaker's schedule while `list` waits for a slower server."""
    config = tmp_path / "config.toml"
    counter, starter = tmp_path / "starts", tmp_path / "missing-server.sh"
    starter.write_text(f"#!/bin/sh\necho start >> '{counter}'\nexec whimbrel-no-such-command\n")
    starter.chmod(0o755)
    code, token = hung_server_code()
    config.write_text(f'[mcp]\ncli_connect_timeout = 5\n\n[mcp.servers.hung]\ncommand = "{sys.executable}"\n'
                      f'args = ["-c", "{code}"]\n\n[mcp.servers.missing]\ncommand = "{starter}"\n')
    listed = whimbrel("list", config=config, cwd=tmp_path)
    assert processes_running(token) == []
    assert listed.returncode == 1
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["hung"]["reason"] == "handshake timed out (no answer within 5s)", "list waited for it"
    assert rows["missing"]["status"] == "failed" and "whimbrel-no-such-command" in rows["missing"]["reason"]
    assert counter.read_text().splitlines() == ["start"], "started more than once"
