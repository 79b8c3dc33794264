"""Sandboxed `true` against unsandboxed `true`, through the same launch the bash tool uses
(app/sandbox: the clean environment, the rlimits' preexec, and for the sandboxed one the hardened
bubblewrap jail with its seccomp filter). Prints the medians, the p95s and the overhead in ms
(target: ≤ 15 ms), and as a floor the cheapest jail bwrap makes (`--ro-bind / /`, no namespaces but
the mount one): what the hardening itself costs is the jail's figure less that one. Figures from one
run on a shared machine: compare them to each other only.

    PYTHONPATH=. .venv/bin/python benchmarks/sandbox.py [--runs N] [--smoke]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from app.sandbox import bwrap, jail


def timed(make, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        launch = make()
        try:
            subprocess.run(launch.argv, stdin=subprocess.DEVNULL, check=True, **launch.kwargs())
        finally:
            launch.started()
        times.append((time.perf_counter() - started) * 1000)
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="launches of each kind (default 100)")
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round, to show it still runs (its figures mean nothing)")
    options = parser.parse_args()
    runs = 4 if options.smoke else max(4, options.runs)
    if bwrap.available() is None:
        print(f"no sandbox here: {bwrap.unavailable_reason()}")
        return
    with tempfile.TemporaryDirectory() as workspace:
        spec = bwrap.SandboxSpec("workspace-write", Path(workspace))
        floor_argv = [bwrap.available() or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "true"]
        plain, jailed, floor = [], [], []
        for _ in range(2):  # interleaved halves, so a burst of load hits all three
            plain += timed(lambda: jail.plain(["true"]), runs // 2)
            jailed += timed(lambda: bwrap.wrap(["true"], spec), runs // 2)
            floor += timed(lambda: jail.plain(floor_argv), runs // 2)
    print(f"unsandboxed true: median {statistics.median(plain):.2f} ms, p95 {p95(plain):.2f} ms")
    print(f"sandboxed true:   median {statistics.median(jailed):.2f} ms, p95 {p95(jailed):.2f} ms")
    print(f"bare bwrap true:  median {statistics.median(floor):.2f} ms, p95 {p95(floor):.2f} ms (the floor)")
    overhead = statistics.median(jailed) - statistics.median(plain)
    print(f"sandbox overhead: {overhead:.2f} ms (median; target <= 15 ms) — {'within' if overhead <= 15 else 'OVER'}; "
          f"the hardening's share: {statistics.median(jailed) - statistics.median(floor):.2f} ms")


if __name__ == "__main__":
    main()
