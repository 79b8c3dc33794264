"""How a one-shot `whimbrel mcp VERB` ends, now that it ends quickly: the server is gone when the command has exited
(no orphan, also of a server that does not exit when its stdin closes), the answer printed is the whole answer (the
same the official Inspector CLI prints), only the verbs that run the server's code offer the roots, and the SDK is
imported without its server half in the command's own process (app/mcp/sdk_client.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.mcp.conftest import NODE22_BIN, NODE_DIR, needs_node, require, server_path
from tests.mcp.test_cli import ROOT, processes_running

INSPECTOR = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"
EXTRA = {"whimbrelName", "functionParameters", "schemaProblem"}  # what `tools` adds, each under its own name
CAPABLE_CLIENTS_ONLY = {"trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request"}


def whimbrel(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    config = cwd / "config.toml"
    config.write_text("")
    env = {**os.environ, "PATH": server_path(), "WHIMBREL_CONFIG": str(config), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "app.cli", "mcp", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=90)


def inspector(*args: str) -> dict:
    """What the Inspector CLI prints for the same request (its JSON)."""
    env = {**os.environ, "PATH": os.pathsep.join([str(NODE22_BIN), server_path()])}
    done = subprocess.run(["node", str(INSPECTOR), *args], capture_output=True, text=True, env=env,
                          cwd=INSPECTOR.parent, timeout=90)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_node
@pytest.mark.parametrize("verb, words, method", [
    ("tools", [], ["--method", "tools/list"]),
    ("prompts", [], ["--method", "prompts/list"]),
    # call offers the roots, and server-everything, offered them, asks for them after the handshake and then
    # waits for the answer instead of exiting when its stdin closes: it must be ended all the same
    ("call", ["echo", "message=hi"], ["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"]),
])
def test_server_everything_is_gone_when_the_verb_exits_and_its_answer_is_whole(tmp_path, verb, words, method):
    token = f"whimbrel-exit-{uuid.uuid4().hex}"  # an argument server-everything ignores: it finds the process
    done = whimbrel(verb, f"stdio:mcp-server-everything stdio {token}", *words, cwd=tmp_path)
    left = processes_running(token)  # at once: the command has exited, nothing may be left running
    assert done.returncode == 0, done.stderr
    assert left == [], f"the server outlived whimbrel mcp {verb}: {left}"
    assert "Traceback" not in done.stderr and "error" not in done.stderr.lower(), done.stderr
    ours = json.loads(done.stdout)  # the whole JSON: it parses
    theirs = inspector("mcp-server-everything", "stdio", *method)
    if verb == "call":
        assert ours == {**theirs, "text": "Echo: hi"}
        return
    listed = {row["name"]: {k: v for k, v in row.items() if k not in EXTRA} for row in ours}
    assert [listed.get(row["name"]) for row in theirs[verb]] == theirs[verb]  # every one, as the server sent it
    # and those the server offers only to a client that can answer sampling or elicitation (the Inspector cannot)
    assert set(listed) - {row["name"] for row in theirs[verb]} <= CAPABLE_CLIENTS_ONLY


def test_a_python_server_is_gone_when_the_verb_exits(tmp_path):
    """A Python server (the SDK's own) tidies up for a while after its stdin closes: the command does not wait for
    that, and the server is ended with its process group before the command exits."""
    token = f"whimbrel-exit-{uuid.uuid4().hex}"
    spec = f"stdio:{sys.executable} {ROOT / 'tests' / 'mcp' / 'sleepy_server.py'} {tmp_path / 'pid'} {token}"
    done = whimbrel("tools", spec, cwd=tmp_path)
    left = processes_running(token)
    assert done.returncode == 0, done.stderr
    assert left == [], f"the server outlived whimbrel mcp tools: {left}"
    assert [tool["name"] for tool in json.loads(done.stdout)] == ["nap"]


def test_only_the_verbs_that_run_the_servers_code_offer_roots(tmp_path):
    """A listing offers no roots (a server offered them may ask at any moment, and some wait for the answer
    rather than exit); call, read and prompt do, so a tool that works in the workspace's roots still can."""
    require("mcp-server-time")
    sent = tmp_path / "sent.jsonl"

    def capabilities(*args: str) -> dict:
        sent.unlink(missing_ok=True)
        done = whimbrel(*args[:1], f"stdio:sh -c 'tee -a {sent} | mcp-server-time'", *args[1:], cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        first = json.loads(sent.read_text().splitlines()[0])["params"]  # mcp-server-time speaks 2026-07-28: the
        return first.get("capabilities") or first["_meta"]["io.modelcontextprotocol/clientCapabilities"]  # _meta

    assert "roots" not in capabilities("tools")
    assert "roots" not in capabilities("prompts")
    assert "roots" in capabilities("call", "get_current_time", "timezone=UTC")


def test_the_command_line_imports_the_sdk_without_its_server_half():
    code = ("import sys\nfrom app.mcp.sdk_client import import_client_only\nlight = import_client_only()\n"
            "from mcp.client.client import Client\nfrom mcp.client.stdio import StdioServerParameters\n"
            "import mcp.types\n"
            "print(light, sorted(m for m in ('uvicorn', 'starlette', 'mcp.server.lowlevel') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    light = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert light.stdout.split() == ["True", "[]"], light.stderr
    # a process that has the SDK already (the window, the tests) keeps it whole: nothing is shadowed
    whole = subprocess.run([sys.executable, "-c", "import mcp.server.lowlevel\n" + code], capture_output=True,
                           text=True, env=env, timeout=60)
    assert whole.stdout.split() == ["False", "['mcp.server.lowlevel',", "'starlette',", "'uvicorn']"], whole.stderr
