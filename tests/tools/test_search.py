import shutil
from pathlib import Path

import pytest

from tests.tools.helpers import run
from tools import search as search_module
from tools.context import ToolContext
from tools.registry import ToolRegistry

HAS_RG = shutil.which("rg") is not None


@pytest.fixture
def tree(workspace: Path) -> Path:
    files = {
        "src/app.py": "import os\ndef load_config():\n    return os.environ\n",
        "src/util/helpers.py": "def load_data(path):\n    pass\n",
        "src/web.ts": "function loadPage() {}\n",
        "README.md": "Call load_config to start.\n",
        ".hidden.cfg": "load_hidden = 1\n",
        ".git/config": "load_git = 1\n",
        "node_modules/pkg/index.js": "load_module()\n",
        ".venv/lib/site.py": "def load_venv(): pass\n",
        "crlf.txt": "load_crlf\r\nother\r\n",
    }
    for rel, text in files.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_bytes(text.encode())
    (workspace / "blob.bin").write_bytes(b"load_binary\0\x01\x02")
    return workspace


EXPECTED_ALL = [
    ".hidden.cfg:1:load_hidden = 1",
    "README.md:1:Call load_config to start.",
    "crlf.txt:1:load_crlf",
    "src/app.py:2:def load_config():",
    "src/util/helpers.py:1:def load_data(path):",
]


@pytest.fixture(params=["python", "rg"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(search_module.shutil, "which", lambda _name: None)
    elif not HAS_RG:
        pytest.skip("ripgrep is not installed")
    return request.param


async def test_finds_matches_skipping_vendored_and_binary(registry: ToolRegistry, ctx: ToolContext,
                                                          tree: Path, backend: str) -> None:
    text, err = await run(registry, ctx, "search", {"pattern": r"load_\w+"})
    assert not err
    assert text.splitlines() == EXPECTED_ALL


async def test_path_and_glob(registry: ToolRegistry, ctx: ToolContext, tree: Path, backend: str) -> None:
    text, _ = await run(registry, ctx, "search", {"pattern": "load", "path": "src", "glob": "*.py"})
    assert text.splitlines() == ["src/app.py:2:def load_config():", "src/util/helpers.py:1:def load_data(path):"]
    text, _ = await run(registry, ctx, "search", {"pattern": "load", "path": "src/web.ts"})
    assert text == "src/web.ts:1:function loadPage() {}"
    text, _ = await run(registry, ctx, "search", {"pattern": "load", "glob": "src/util/*.py", "path": "src"})
    assert text == "src/util/helpers.py:1:def load_data(path):"


async def test_no_match_and_cap(registry: ToolRegistry, ctx: ToolContext, workspace: Path, backend: str) -> None:
    text, err = await run(registry, ctx, "search", {"pattern": "zzz_nothing"})
    assert not err and text.startswith("No matches")
    (workspace / "many.txt").write_text("hit\n" * 500)
    text, _ = await run(registry, ctx, "search", {"pattern": "hit"})
    lines = text.splitlines()
    assert len(lines) == search_module.MAX_MATCHES + 1
    assert lines[-1].startswith("[results capped at 200")


async def test_python_only_syntax_falls_back(registry: ToolRegistry, ctx: ToolContext, tree: Path,
                                             backend: str) -> None:
    text, err = await run(registry, ctx, "search", {"pattern": r"load_(?=config)", "path": "src"})
    assert not err and text == "src/app.py:2:def load_config():"


async def test_invalid_regex_is_explained(registry: ToolRegistry, ctx: ToolContext, tree: Path,
                                          backend: str) -> None:
    text, err = await run(registry, ctx, "search", {"pattern": "load_(unclosed"})
    assert err and "Invalid regular expression" in text


async def test_missing_path(registry: ToolRegistry, ctx: ToolContext, backend: str) -> None:
    text, err = await run(registry, ctx, "search", {"pattern": "x", "path": "nowhere"})
    assert err and "does not exist" in text


async def test_glob_star_stays_in_one_directory(registry: ToolRegistry, ctx: ToolContext, tree: Path,
                                                backend: str) -> None:
    text, _ = await run(registry, ctx, "search", {"pattern": "load", "glob": "src/*.py"})
    assert text == "src/app.py:2:def load_config():"
    text, _ = await run(registry, ctx, "search", {"pattern": "load", "glob": "src/**/*.py"})
    assert text.splitlines() == ["src/app.py:2:def load_config():", "src/util/helpers.py:1:def load_data(path):"]


async def test_empty_match_counts_real_lines_only(registry: ToolRegistry, ctx: ToolContext, workspace: Path,
                                                  backend: str) -> None:
    (workspace / "two.txt").write_text("a\nb\n")
    text, _ = await run(registry, ctx, "search", {"pattern": "^"})
    assert text.splitlines() == ["two.txt:1:a", "two.txt:2:b"]
