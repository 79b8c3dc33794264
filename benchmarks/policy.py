"""The permission engine's cost per call, beside what it adds to: printed as ratios from one run.

1. Decision plus audit row for 10,000 calls against 200 rules (p50 / p95 per call; target p95 ≤ 1 ms
   for the decision), beside a bare SQLite insert of the same row. Each call's command differs (a
   varying argument), so every decision reads its line afresh (no cache hit).
2. The bash reader alone, per line read afresh: tree-sitter's (app/permissions/shell.py) beside the
   hand-written reader it replaced, loaded from git history (`OLD_READER`) into a temporary module.
3. `true` run in the bubblewrap sandbox against unsandboxed (target: ≤ 15 ms more per call).

    .venv/bin/python benchmarks/policy.py [--calls 10000] [--runs 50] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

from app.permissions import audit
from app.permissions.gate import CallView, Gate
from app.permissions.policy import Policy
from app.permissions.rules import Rule
from app.sandbox import jail
from app.sandbox.bwrap import SandboxSpec, available, wrap
from app.storage.store import Store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # benchmarks.sandbox, when run as a script
OLD_READER = "4e2bfe9a2c707953e17ec911ec803388b5fdad0c:app/permissions/shell.py"  # the last hand-written one
COMMANDS = ["git status", "git push origin main", "npm run test:unit", "ls -la src", "rm -rf build",
            "git status && make test", "echo $(whoami) > out.txt", "sudo apt-get update", "cat .env",
            "timeout 5 pytest -q tests/test_x.py | tee log.txt"]


def rules(count: int) -> list[Rule]:
    made = [Rule("bash(git status)", "allow"), Rule("bash(npm run test:*)", "allow"), Rule("bash(git * main)", "ask"),
            Rule("bash(rm -rf /*)", "deny")]
    for i in range(count - len(made)):
        made.append(Rule(f"bash(tool{i} sub{i % 7} *)", random.choice(["allow", "ask"])))
    return made


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


def bench_decisions(calls: int, rule_count: int, folder: Path) -> None:
    workspace = folder / "ws"
    workspace.mkdir()
    gate = Gate(Policy(rules(rule_count), [], workspace), "ask")
    store = Store(folder / "audit.db")
    decide, record, decide_cpu = [], [], []
    for i in range(calls):
        command = fresh(i)
        cpu = time.thread_time()
        start = time.perf_counter()
        verdict = gate.decide(CallView("bash", {"command": command}, primary="command"))
        middle = time.perf_counter()
        decide_cpu.append((time.thread_time() - cpu) * 1000)
        audit.append(store.engine, audit.AuditRow("w", f"c{i}", "bash", json.dumps({"command": command}),
                                                  verdict.outcome, verdict.decided_by, "ask",
                                                  f"{verdict.risk.level}: {verdict.risk.reason}", "none", "done", 1.0))
        end = time.perf_counter()
        decide.append((middle - start) * 1000)
        record.append((end - middle) * 1000)
    store.close()
    bare = sqlite3.connect(folder / "bare.db", isolation_level=None)
    bare.execute("PRAGMA journal_mode=WAL")
    bare.execute("CREATE TABLE t (a TEXT, b TEXT, c TEXT, d TEXT, e TEXT, f TEXT, g TEXT, h TEXT, i TEXT, j REAL)")
    raw = []
    for i in range(calls):
        start = time.perf_counter()
        bare.execute("BEGIN IMMEDIATE")
        bare.execute("INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?)", ("w", f"c{i}", "bash", "{}", "allow", "rule",
                                                                   "ask", "low", "none", 1.0))
        bare.execute("COMMIT")
        raw.append((time.perf_counter() - start) * 1000)
    bare.close()
    print(f"{calls} calls against {rule_count} rules:")
    print(f"  decision       p50 {percentile(decide, 50):.3f} ms   p95 {percentile(decide, 95):.3f} ms"
          f"   (target p95 <= 1 ms: {'met' if percentile(decide, 95) <= 1 else 'NOT met'})")
    print(f"  decision (CPU) p50 {percentile(decide_cpu, 50):.3f} ms   p95 {percentile(decide_cpu, 95):.3f} ms"
          "   (this thread's CPU only: the wall-clock p95 includes time the machine gave to others)")
    print(f"  audit row      p50 {percentile(record, 50):.3f} ms   p95 {percentile(record, 95):.3f} ms")
    print(f"  bare insert    p50 {percentile(raw, 50):.3f} ms   p95 {percentile(raw, 95):.3f} ms")
    total = [a + b for a, b in zip(decide, record)]
    print(f"  ratio (decision + audit row) / bare insert, p95: {percentile(total, 95) / percentile(raw, 95):.2f}")


def fresh(i: int) -> str:
    """The i-th benchmark command, with an argument of its own so the line cache never answers."""
    return f"{COMMANDS[i % len(COMMANDS)]} && echo {i}"


def old_reader():
    """The replaced reader's `parse`, from git history, or None where git or the commit is missing."""
    try:
        source = subprocess.run(["git", "show", OLD_READER], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType("old_shell_reader")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, "old_shell_reader.py", "exec"), module.__dict__)
    return module.parse


def bench_reader(calls: int) -> None:
    from app.permissions.shell import parse

    readers = {"tree-sitter reader": parse}
    old = old_reader()
    if old is not None:
        readers["hand-written reader"] = old
    p95 = {}
    for name, read in readers.items():
        times = []
        for i in range(calls):
            line = fresh(i)
            start = time.perf_counter()
            read(line)
            times.append((time.perf_counter() - start) * 1000)
        p95[name] = percentile(times, 95)
        print(f"  {name:20} p50 {percentile(times, 50):.3f} ms   p95 {p95[name]:.3f} ms per line")
    if old is None:
        print(f"  (the hand-written reader is not in this checkout's history: {OLD_READER})")
    else:
        print(f"  ratio tree-sitter / hand-written, p95: {p95['tree-sitter reader'] / p95['hand-written reader']:.2f}")


def bench_sandbox(runs: int, folder: Path) -> None:
    """Sandboxed `true` against unsandboxed, timed the way benchmarks/sandbox.py times them."""
    from benchmarks.sandbox import timed

    if available() is None:
        print("sandbox: bubblewrap cannot run here; skipped")
        return
    spec = SandboxSpec("workspace-write", folder)
    plain = timed(lambda: jail.plain(["bash", "-c", "true"]), runs)
    boxed = timed(lambda: wrap(["bash", "-c", "true"], spec), runs)
    extra = statistics.median(boxed) - statistics.median(plain)
    print(f"`true`, {runs} runs: unsandboxed median {statistics.median(plain):.1f} ms, sandboxed "
          f"{statistics.median(boxed):.1f} ms; +{extra:.1f} ms per call "
          f"(target <= 15 ms: {'met' if extra <= 15 else 'NOT met'}), ratio {statistics.median(boxed) / statistics.median(plain):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--rules", type=int, default=200)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--smoke", action="store_true", help="CI: one tiny round, to show it still runs (its figures mean nothing)")
    args = parser.parse_args()
    if args.smoke:
        args.calls, args.rules, args.runs = 40, 20, 4
    random.seed(13)
    with tempfile.TemporaryDirectory() as folder:
        bench_decisions(args.calls, args.rules, Path(folder))
        print("the bash reader alone:")
        bench_reader(args.calls)
        bench_sandbox(args.runs, Path(folder))


if __name__ == "__main__":
    main()
