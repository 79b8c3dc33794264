"""The benchmarks do not rot unseen: each one runs its real code path once, tiny, in its `--smoke` mode
(one round, small sizes), and must reach its report. No figure is asserted: benchmarks print ratios
measured in one run, never pass or fail on a clock. A new benchmark needs a `--smoke` mode and a line
in REPORTS, or this module fails."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HELPERS = {"pty_terminal", "bare_textual_app", "__init__"}  # used by benchmarks, not benchmarks themselves
BENCHMARKS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in HELPERS)

# What each smoke run prints once it has measured everything: its report's last part (or the line that
# says a part could not run here: no bubblewrap). Each `--smoke` command line is one test, so the
# slow ones (a real `whimbrel` in a pty, several times) spread over the xdist workers.
REPORTS = {
    "checkpoint": r"store growth per checkpoint",
    "closing_terminal": r"survivors: 0 of 1",
    "code_mode": r"code / native, all calls in one response",
    "headless": r"whimbrel acp round trip / whimbrel run",
    "mcp_cli": r"worst ratio",
    "mcp_roundtrip": r"(?s)in-process .* ratio .*\nstdio .* ratio",
    "mcp_startup": r"first paint: none",
    "memory": r"memory selection over",
    "mention_completion": r"per keystroke",
    "policy": r"(?s)tree-sitter reader.*(`true`, \d+ runs|sandbox: bubblewrap cannot run here)",
    "sandbox": r"sandbox overhead:|no sandbox here",
    "startup": r"heavy SDKs in sys.modules after importing",
    "storage": r"follower latency on postgresql .* p95",
    "throughput": r"(?m)^openai .*\n^openai-responses .*\n^anthropic ",
    "tools": r"(?s)tool_search over 500 tools.*web_fetch of a.*task sub-agents",
    "workstreams --echo": r"ratio of p95s",
    "workstreams --open": r"ratio \(5,000 / 50 messages\)",
    "workstreams --huge": r"keystroke echo while a .* reply streams",
}
# What a smoke run needs that the README's test command does not install (.ci/run installs tmux).
NEEDS = {
    "storage": ("Debian's postgresql (apt-get install postgresql)", lambda: __import__(
        "tests.pg_server", fromlist=["bin_dir"]).bin_dir() is not None),
    "closing_terminal": ("tmux", lambda: shutil.which("tmux") is not None),
    "mcp_cli": ("the Inspector CLI (npm ci --prefix tests/mcp/node)", lambda: (
        ROOT / "tests" / "mcp" / "node" / "node_modules" / "@modelcontextprotocol" / "inspector-cli").exists()),
}
SMOKED_ELSEWHERE = {"serve"}  # in a real browser: tests/serve/test_serve_benchmark.py
SMOKE_SECONDS = 420  # the slowest (startup.py: seven program starts in a pty) takes a minute on a loaded machine


def run(*argv: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_every_benchmark_has_a_smoke_test() -> None:
    assert sorted({case.split()[0] for case in REPORTS} | SMOKED_ELSEWHERE) == BENCHMARKS


@pytest.mark.timeout(SMOKE_SECONDS + 30)
@pytest.mark.parametrize("case", sorted(REPORTS))
def test_each_benchmark_runs_in_its_smoke_mode(case: str) -> None:
    name, *options = case.split()
    if name in NEEDS and not NEEDS[name][1]():
        pytest.skip(f"benchmarks/{name}.py needs {NEEDS[name][0]}")
    done = run(f"benchmarks/{name}.py", "--smoke", *options, timeout=SMOKE_SECONDS)
    assert done.returncode == 0, f"benchmarks/{name}.py --smoke failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert re.search(REPORTS[case], done.stdout), f"no report from benchmarks/{name}.py --smoke:\n{done.stdout[-3000:]}"
