"""Startup benchmark: time to first paint of `whimbrel` against a bare Textual app, in one run.

Measured the way a user sees it: each program is spawned in a pseudo-terminal of a fixed
size (TERM=xterm-256color), the clock starts at spawn, and stops when the pty output
contains the footer's "Quit" key text, which both programs paint only once their first
frame (with the Footer) is on screen. Then the process group is killed. The two programs
alternate (order swapped every round, after one warm-up of each) so machine noise hits
both alike; the ratio of medians is the number to watch (target <= 1.5).
Whimbrel's time until its prompt is on screen (ready for typing: the pane is built once
storage has opened) is shown too, for information; it is not part of the ratio.

Whimbrel's own modules are compiled to bytecode first, as `pip install .` does and as any run
without PYTHONDONTWRITEBYTECODE leaves them: an editable install in an environment that sets it
(this one does) would otherwise compile every module on every start, which no user's install
does; Textual's modules were compiled when pip installed them.

For information it also times the imports of `app.cli` + `app.main` against Textual's,
and checks that no heavy SDK (openai, anthropic, mcp, sqlalchemy) is imported by them:
those must load off the startup path.

    .venv/bin/python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MARKER = b"Quit"
COLUMNS, ROWS = 120, 40
TARGET = 1.5
HEAVY = ("openai", "anthropic", "mcp", "sqlalchemy")


@dataclass(frozen=True)
class Program:
    """A program to time: its name in the table, its command line, and optionally a second
    marker that says it is ready for typing (reported for information, not in the ratio)."""

    name: str
    argv: list[str]
    ready_marker: bytes | None = None


def _controlling_tty() -> None:
    """In the child: its own session and process group, with the pty as controlling terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def time_to_first_paint(program: Program, timeout: float = 60.0) -> tuple[float, float | None]:
    """Seconds from spawning `program` in a fresh pty until MARKER appears in its output,
    and (when the program has one) until its ready marker appears too."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS))
    env.pop("TEXTUAL", None)
    start = time.perf_counter()
    process = subprocess.Popen(program.argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                               cwd=ROOT, preexec_fn=_controlling_tty, close_fds=True)
    os.close(slave)
    seen = b""
    painted: float | None = None
    wanted = [m for m in (MARKER, program.ready_marker) if m]
    tail = max(len(m) for m in wanted)
    try:
        while True:
            remaining = start + timeout - time.perf_counter()
            if remaining <= 0:
                raise RuntimeError(f"{program.name}: no {MARKER!r} within {timeout}s")
            ready, _, _ = select.select([master], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise RuntimeError(f"{program.name} exited before painting: {seen[-800:]!r}")
            # keep a short tail so a marker split across reads is still found
            seen = seen[-tail:] + chunk
            if painted is None and MARKER in seen:
                painted = time.perf_counter() - start
                if program.ready_marker is None:
                    return painted, None
            if painted is not None and program.ready_marker in seen:
                return painted, time.perf_counter() - start
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        os.close(master)


IMPORT_PROBE = """
import json, sys, time
start = time.perf_counter()
{imports}
elapsed = time.perf_counter() - start
print(json.dumps({{"seconds": elapsed, "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def import_time(imports: str, runs: int) -> tuple[float, list[str]]:
    """Median seconds to run `imports` in a fresh interpreter, and which heavy SDKs got loaded."""
    samples, heavy = [], []
    for _ in range(runs):
        code = IMPORT_PROBE.format(imports=imports, heavy=HEAVY)
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        samples.append(result["seconds"])
        heavy = result["heavy"]
    return statistics.median(samples), heavy


def compile_own_modules() -> None:
    """Bytecode for Whimbrel's packages, as an installed copy has (see the module docstring)."""
    import compileall

    for package in ("app", "widgets", "tools", "styles"):
        compileall.compile_dir(ROOT / package, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs of each program (default 7)")
    args = parser.parse_args(argv)
    compile_own_modules()

    with tempfile.TemporaryDirectory(prefix="whimbrel-bench-") as tmp:
        workdir, data_dir = Path(tmp, "work"), Path(tmp, "data")
        workdir.mkdir()
        Path(tmp, "empty.toml").touch()  # a --config that names a missing file is an error
        whimbrel = Program("whimbrel", [str(BIN / "whimbrel"), "--base-url", "http://127.0.0.1:9/v1",
                                        "--model", "m", "--workdir", str(workdir),
                                        "--data-dir", str(data_dir), "--config", str(Path(tmp, "empty.toml"))],
                           ready_marker=b"Ask for work")
        bare = Program("bare textual", [sys.executable, str(ROOT / "benchmarks" / "bare_textual_app.py")])
        programs = (whimbrel, bare)

        print(f"time to first paint ({COLUMNS}x{ROWS} pty, marker {MARKER.decode()!r}), "
              f"{args.runs} runs each after a warm-up")
        for program in programs:  # warm-up: disk caches, .pyc files, the database file
            time_to_first_paint(program)
        times: dict[str, list[float]] = {p.name: [] for p in programs}
        ready: list[float] = []  # whimbrel: until its prompt is on screen
        print(f"{'run':>4}  {'whimbrel':>10}  {'bare textual':>13}  {'whimbrel prompt ready':>22}")
        for run in range(args.runs):
            order = programs if run % 2 == 0 else programs[::-1]
            for program in order:
                painted, ready_at = time_to_first_paint(program)
                times[program.name].append(painted)
                if ready_at is not None:
                    ready.append(ready_at)
            print(f"{run + 1:>4}  {times['whimbrel'][-1]:>9.3f}s  {times['bare textual'][-1]:>12.3f}s"
                  f"  {ready[-1]:>21.3f}s")

    medians = {name: statistics.median(values) for name, values in times.items()}
    ratio = medians["whimbrel"] / medians["bare textual"]
    print(f"{'med':>4}  {medians['whimbrel']:>9.3f}s  {medians['bare textual']:>12.3f}s"
          f"  {statistics.median(ready):>21.3f}s")
    print(f"ratio (whimbrel / bare textual): {ratio:.2f}  target <= {TARGET}"
          f"  {'OK' if ratio <= TARGET else 'OVER TARGET'}")

    print()
    app_seconds, heavy = import_time("import app.cli, app.main", runs=5)
    textual_seconds, _ = import_time("import textual.app, textual.containers, textual.widgets", runs=5)
    print(f"import app.cli + app.main: {app_seconds * 1000:.0f} ms   "
          f"textual: {textual_seconds * 1000:.0f} ms   (medians of 5, fresh interpreters)")
    print(f"heavy SDKs in sys.modules after importing app.main: {', '.join(heavy) or 'none'}"
          f"  ({'OK' if not heavy else 'they must load off the startup path'})")
    return 0 if ratio <= TARGET and not heavy else 1


if __name__ == "__main__":
    raise SystemExit(main())
