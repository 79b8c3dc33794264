"""Shared fixtures: a real workspace directory and a context recording live output."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.context import ToolContext
from tools.registry import ToolRegistry


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def output() -> list[str]:
    return []


@pytest.fixture
def ctx(workspace: Path, output: list[str]) -> ToolContext:
    return ToolContext(workspace=workspace, on_output=output.append, bash_timeout=20)


@pytest.fixture(scope="session")
def registry() -> ToolRegistry:
    return ToolRegistry.load_builtin()
