"""The benchmarks do not rot unseen: each one still imports and parses its options, and the one that
had rotted (mcp_startup.py, built on names startup.py no longer had) runs once in its quick mode. No
figure is asserted: benchmarks print ratios measured in one run, never pass or fail on a clock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HELPERS = {"pty_terminal", "bare_textual_app", "__init__"}  # used by benchmarks, not benchmarks themselves
BENCHMARKS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in HELPERS)


def run(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_each_benchmark_imports_and_parses_its_options(name: str) -> None:
    done = run(f"benchmarks/{name}.py", "--help")
    assert done.returncode == 0, f"benchmarks/{name}.py --help failed:\n{done.stderr[-3000:]}"
    assert "usage:" in done.stdout


@pytest.mark.timeout(180)
def test_mcp_startup_runs_in_its_quick_mode() -> None:
    done = run("benchmarks/mcp_startup.py", "--smoke", timeout=170)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "first paint: none" in done.stdout


@pytest.mark.timeout(300)
def test_mcp_cli_runs_in_its_quick_mode() -> None:
    """One `tools` against the Inspector CLI, where it is installed (tests/mcp/node: npm ci)."""
    inspector = ROOT / "tests" / "mcp" / "node" / "node_modules" / "@modelcontextprotocol" / "inspector-cli"
    if not inspector.exists():
        pytest.skip("the Inspector CLI is not installed in tests/mcp/node (npm ci)")
    done = run("benchmarks/mcp_cli.py", "--smoke", timeout=280)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "worst ratio" in done.stdout
