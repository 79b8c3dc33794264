"""Code mode's generated API for the real MCP servers the suite uses (time, git, fetch, everything):
their tools under tools.<server>.<name>, next to the built-ins, import and type-check."""

from __future__ import annotations

import subprocess
from pathlib import Path

from app.mcp.config import ServerConfig
from app.mcp.manager import McpManager
from tests.mcp.conftest import needs_node, require
from tests.tools.code_api_checks import imported, mypy_problems
from tools.code_api import build
from tools.registry import ToolRegistry


@needs_node
async def test_the_real_servers_tools_import_and_type_check(tmp_path):
    for command in ("mcp-server-time", "mcp-server-git", "mcp-server-fetch"):
        require(command)
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    configs = [ServerConfig("time", command="mcp-server-time", args=["--local-timezone", "UTC"]),
               ServerConfig("git", command="mcp-server-git", args=["--repository", str(repo)]),
               ServerConfig("fetch", command="mcp-server-fetch"),
               ServerConfig("everything", command="mcp-server-everything", args=["stdio"])]
    manager = McpManager(configs, refresh_interval=0, workspace=Path(repo))
    manager.start()
    try:
        for config in configs:
            await manager.wait_ready(config.name, 90)
        specs = manager.tool_specs()
    finally:
        await manager.stop()
    api = build([*ToolRegistry.load_builtin()._specs.values(), *specs])
    for server in ("time", "git", "fetch", "everything"):
        assert f"    {server}: Server_{server}" in api.text
    assert api.bindings["time.get_current_time"] == "mcp__time__get_current_time"
    assert api.bindings["git.git_status"] == "mcp__git__git_status"
    assert api.bindings["everything.get_sum"] == "mcp__everything__get-sum"
    assert set(api.bindings.values()) >= {s.name for s in specs}, sorted({s.name for s in specs} - set(api.bindings.values()))
    imported(api, tmp_path)
    assert mypy_problems(api, tmp_path) == ""
