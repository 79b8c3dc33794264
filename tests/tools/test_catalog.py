"""docs/tools.md is generated from the registry: stale docs fail, naming the command that fixes them."""

from __future__ import annotations

from tools.catalog import DOC_PATH, REGENERATE, render
from tools.registry import ToolRegistry


def test_docs_tools_md_is_current(registry: ToolRegistry) -> None:
    current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
    assert current == render(registry), f"docs/tools.md is stale: run `{REGENERATE}` and commit it"


def test_every_tool_has_its_facts(registry: ToolRegistry) -> None:
    text = render(registry)
    for name in registry.names() + ["tool_search"]:
        assert f"## `{name}`" in text
    assert "| `bash` | files and commands | asks: runs a shell command | main, task | command | no |" in text
    assert "| `read_file` | files and commands | runs without asking (paths outside the workspace still ask) | " \
           "main, task, plan | path | yes |" in text
