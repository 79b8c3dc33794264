"""A folder search leaves out what may not be read unasked: files a read-deny (or ask) path rule covers and
secret files no allow rule names; the result says how many and why, by name only (never by content), with
ripgrep and with the Python walk."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from app.permissions.gate import Gate
from app.permissions.policy import Policy
from app.permissions.rules import Rule
from tests.tools.helpers import run
from tools import search as search_module
from tools.context import ToolContext
from tools.guard import CallGuard
from tools.registry import ToolRegistry

TOKEN = "sk-live-SECRET-123"


@pytest.fixture(params=["python", "rg"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(search_module.shutil, "which", lambda _name: None)
    elif shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    return request.param


@pytest.fixture
def tree(workspace: Path) -> Path:
    files = {".env": f"API_TOKEN={TOKEN}\n", "config/secrets/db.txt": f"password {TOKEN}\n",
             "deploy/server.pem": f"-----BEGIN PRIVATE KEY----- {TOKEN}\n", "src/app.py": "TOKEN = load()\n",
             "notes.md": "the TOKEN lives elsewhere\n"}
    for rel, text in files.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    return workspace


def guarded(ctx: ToolContext, *rules: tuple[str, str], mode: str = "ask") -> ToolContext:
    policy = Policy([Rule(spec, decision) for spec, decision in rules], [], ctx.workspace)
    guard = CallGuard(Gate(policy, mode))  # type: ignore[arg-type]
    return dataclasses.replace(ctx, unreadable=guard.unreadable)


async def test_a_denied_folder_and_secrets_are_not_searched(registry: ToolRegistry, ctx: ToolContext, tree: Path,
                                                            backend: str) -> None:
    ctx = guarded(ctx, ("read(**/secrets/**)", "deny"))
    text, err = await run(registry, ctx, "search", {"pattern": "TOKEN", "path": "."})
    assert not err and TOKEN not in text
    lines = text.splitlines()
    assert lines[:2] == ["notes.md:1:the TOKEN lives elsewhere", "src/app.py:1:TOKEN = load()"]
    assert lines[2].startswith("[3 files not searched (not to be read unasked): ")
    assert "config/secrets/db.txt (reading config/secrets/db.txt is denied by" in lines[2]
    assert ".env (.env is a secret" in lines[2] and "read(.env)" in lines[2] and "deploy/server.pem" in lines[2]


async def test_the_note_does_not_depend_on_what_the_left_out_files_hold(registry: ToolRegistry, ctx: ToolContext,
                                                                       tree: Path, backend: str) -> None:
    ctx = guarded(ctx, ("read(**/secrets/**)", "deny"))
    hit, _ = await run(registry, ctx, "search", {"pattern": "SECRET-123"})
    miss, _ = await run(registry, ctx, "search", {"pattern": "SECRET-999"})
    assert TOKEN not in hit
    assert hit.replace("SECRET-123", "X") == miss.replace("SECRET-999", "X")
    assert hit.startswith("No matches") and "3 files not searched" in hit


async def test_an_allow_rule_naming_the_secret_lets_it_be_searched(registry: ToolRegistry, ctx: ToolContext,
                                                                   tree: Path, backend: str) -> None:
    ctx = guarded(ctx, ("read(.env)", "allow"))
    text, _ = await run(registry, ctx, "search", {"pattern": "API_TOKEN"})
    assert text.splitlines()[0] == f".env:1:API_TOKEN={TOKEN}"
    assert "1 file not searched" in text and ".env (" not in text


async def test_without_a_gate_secrets_are_still_left_out(registry: ToolRegistry, ctx: ToolContext, tree: Path,
                                                         backend: str) -> None:
    text, _ = await run(registry, ctx, "search", {"pattern": "TOKEN", "glob": "*.env"})
    assert TOKEN not in text and text.startswith("No matches") and "1 file not searched" in text


async def test_a_search_near_no_denied_file_is_unchanged(registry: ToolRegistry, ctx: ToolContext, tree: Path,
                                                         backend: str) -> None:
    ctx = guarded(ctx, ("read(**/secrets/**)", "deny"))
    text, _ = await run(registry, ctx, "search", {"pattern": "TOKEN", "path": "src"})
    assert text == "src/app.py:1:TOKEN = load()"
