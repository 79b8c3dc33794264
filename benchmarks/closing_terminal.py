"""Closing the terminal while Whimbrel starts: how many processes survive it.

A terminal window that closes hangs its terminal up: the kernel sends SIGHUP (and SIGCONT) to the
program in it, and every later write fails. Whimbrel must end then, at any moment of its start-up.
This runs it N times in a real terminal emulator (tmux, as a user's window would be), kills the tmux
server (the window closing) a chosen delay after the first screen is shown, and counts the processes
of Whimbrel still alive GRACE seconds later. The figure to print is "0 of N".

A bare Textual app is not run beside it: this counts survivors, it does not time anything.

    .venv/bin/python benchmarks/closing_terminal.py [--runs 30] [--delays 0,0.15,0.4] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.pty_terminal import process_tree  # noqa: E402

GRACE = 5.0  # seconds a hung-up Whimbrel may take to end
FIRST_SCREEN = "for work"  # the prompt's placeholder: the first screen is shown
START_PATIENCE = 60.0


def tmux(socket_name: str, *args: str, check: bool = True) -> str:
    done = subprocess.run(["tmux", "-L", socket_name, *args], capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def one_close(delay: float, home: Path, round_number: int) -> list[int]:
    """Start Whimbrel in a fresh tmux server, close it `delay` seconds after the first screen, and
    return the pids still alive GRACE seconds later (killed before returning)."""
    socket_name = f"whimbrel-close-{os.getpid()}-{round_number}"
    workdir = home / f"work-{round_number}"
    workdir.mkdir()
    command = " ".join(shlex.quote(part) for part in (
        sys.executable, "-m", "app.cli", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
        "--data-dir", str(home / f"data-{round_number}"), "--workdir", str(workdir)))
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "TERM": "xterm-256color"}
    subprocess.run(["tmux", "-L", socket_name, "new-session", "-d", "-x", "160", "-y", "48", command],
                   env=environment, check=True, timeout=30)
    pane = int(tmux(socket_name, "display-message", "-p", "#{pane_pid}").strip())
    until = time.monotonic() + START_PATIENCE
    while FIRST_SCREEN not in tmux(socket_name, "capture-pane", "-p", check=False):
        if time.monotonic() > until:
            raise RuntimeError(f"no first screen within {START_PATIENCE:.0f} s")
        time.sleep(0.01)
    time.sleep(delay)
    processes = set(process_tree(pane))
    tmux(socket_name, "kill-server", check=False)
    until = time.monotonic() + GRACE
    while time.monotonic() < until and any(alive(pid) for pid in processes):
        time.sleep(0.05)
    survivors = [pid for pid in processes if alive(pid)]
    for pid in survivors:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return survivors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="closes per delay (default 30)")
    parser.add_argument("--delays", default="0,0.15,0.4",
                        help="seconds after the first screen to close the terminal, comma-separated")
    parser.add_argument("--smoke", action="store_true", help="one close at one delay: the code path, no figure")
    options = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed: nothing to measure", file=sys.stderr)
        return 2
    delays = [0.15] if options.smoke else [float(value) for value in options.delays.split(",")]
    runs = 1 if options.smoke else options.runs
    total = survived = 0
    with tempfile.TemporaryDirectory(prefix="whimbrel-close-") as scratch:
        home = Path(scratch)
        for delay in delays:
            left = 0
            for index in range(runs):
                left += bool(one_close(delay, home, total))
                total += 1
            survived += left
            print(f"closed {delay:.2f} s after the first screen: {left} of {runs} survived", flush=True)
    print(f"survivors: {survived} of {total}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
