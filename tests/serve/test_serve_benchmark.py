"""benchmarks/serve.py does not rot: its quick mode runs (the terminal and the browser, one round each)
and prints both figures. No figure is asserted: benchmarks never pass or fail on a clock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.serve.served import have_browser

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.timeout(300)
@pytest.mark.skipif(bool(have_browser()), reason=have_browser() or "a browser is here")
def test_the_serve_benchmark_runs_in_its_quick_mode() -> None:
    done = subprocess.run([sys.executable, "benchmarks/serve.py", "--smoke"], cwd=ROOT, capture_output=True,
                          text=True, timeout=280, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    rows = [line.split() for line in done.stdout.splitlines()]
    table = {row[0]: row[1:] for row in rows if len(row) == 5 and row[2] == row[4] == "ms"}
    assert set(table) == {"terminal", "browser"}, done.stdout  # each: first screen, echo while streaming
    assert "browser / terminal: first screen" in done.stdout
