"""`whimbrel mcp serve --allow 'bash(echo *)'` is not fooled by syntax bash executes: the hidden command
does not run (its marker file is not created) and the refusal says why. The same server and guard as
`mcp serve`, real bash, real SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.mcp.serve import ToolServer
from app.permissions.unattended import cli_rules
from app.storage.async_store import AsyncStore
from tools.registry import ToolRegistry
from tools.unattended import unattended_guard


@pytest.mark.parametrize("command", ["echo $(touch marker)", "echo ${x:-$(touch marker)}",
                                     "echo $'\\'' ; touch marker #'", "echo ${a[$(touch marker)]}"])
async def test_an_allowed_echo_does_not_run_a_hidden_command(tmp_path: Path, command: str):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    try:
        guard = await unattended_guard(config=None, workspace=workspace, data_dir=tmp_path / "data",
                                       config_path=tmp_path / "config.toml", store=store, mode="ask",
                                       rules=cli_rules(["bash(echo *)"], []), nobody="nobody can answer")
        server = ToolServer(ToolRegistry.load_builtin(), workspace, expose={"bash"}, guard=guard)
        text, error = await server.call("bash", {"command": command})
        assert error and "nobody can answer" in text, text
        assert not (workspace / "marker").exists()
        text, error = await server.call("bash", {"command": "echo plain"})
        assert not error and "plain" in text  # the rule still allows what it names
    finally:
        await store.aclose()
