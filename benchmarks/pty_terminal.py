"""A program run in a real pseudo-terminal for the benchmarks: markers seen, keys sent, /proc read.

`Terminal` spawns a program on a fresh pty of a fixed size (its own session, the pty as its
controlling terminal), keeps everything it writes, and answers when byte strings (markers) have
appeared in that output. It drains the output while it waits, so the program never blocks on a
full terminal. The process tree's resident memory and CPU time come from /proc.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

COLUMNS, ROWS = 120, 40


def _controlling_tty() -> None:
    """In the child: its own session and process group, with the pty as controlling terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)



def process_tree(root: int) -> list[int]:
    """`root` and every process below it, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found

class Terminal:
    """One program on its own pty; `output` is everything it has written so far."""

    def __init__(self, name: str, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.name = name
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        environment = dict(env or os.environ, TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS))
        environment.pop("TEXTUAL", None)
        self.started = time.perf_counter()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=environment,
                                        cwd=cwd, preexec_fn=_controlling_tty, close_fds=True)
        os.close(slave)
        self.master = master
        self.output = bytearray()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def _read(self, timeout: float) -> bool:
        """Read what is there (waiting up to `timeout`); False once the program has gone."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, timeout))
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            return False
        self.output += chunk
        return True

    def wait_for(self, markers: dict[str, bytes], since: int = 0, timeout: float = 60.0) -> dict[str, float]:
        """Seconds from the spawn until each marker was first seen in the output after byte offset
        `since`; raises if one has not appeared within `timeout`."""
        seen: dict[str, float] = {}
        deadline = time.perf_counter() + timeout
        while True:
            for name, marker in markers.items():
                if name not in seen and self.output.find(marker, since) >= 0:
                    seen[name] = self.elapsed()
            if len(seen) == len(markers):
                return seen
            left = deadline - time.perf_counter()
            missing = [name for name in markers if name not in seen]
            if left <= 0:
                raise RuntimeError(f"{self.name}: {missing} not on screen within {timeout}s; "
                                   f"last output {bytes(self.output[-600:])!r}")
            if not self._read(left):
                raise RuntimeError(f"{self.name} exited before showing {missing}: {bytes(self.output[-800:])!r}")

    def drain_until(self, at: float) -> None:
        """Keep reading the output until `at` seconds after the spawn."""
        while (left := at - self.elapsed()) > 0:
            if not self._read(left):
                raise RuntimeError(f"{self.name} exited: {bytes(self.output[-800:])!r}")

    def send(self, data: bytes) -> tuple[int, float]:
        """Type `data`; returns the output offset and the time of the write (for `wait_for`)."""
        offset = len(self.output)
        os.write(self.master, data)
        return offset, self.elapsed()

    def echo_seconds(self, key: bytes, timeout: float = 30.0) -> float:
        """Type one key and time until it is echoed (the key's bytes appear in the output)."""
        offset, sent = self.send(key)
        return self.wait_for({"echo": key}, since=offset, timeout=timeout)["echo"] - sent

    def pids(self) -> list[int]:
        """The program and every process below it."""
        return process_tree(self.process.pid)

    def rss_mb(self) -> float:
        """Resident memory of the whole process tree, in MB."""
        total_kb = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total_kb += int(line.split()[1])
            except OSError:
                continue
        return total_kb / 1024

    def cpu_seconds(self) -> float:
        """CPU time of the whole process tree so far: every thread's time on a CPU, in nanoseconds
        (/proc/PID/task/TID/schedstat), which is finer than the 10 ms ticks of /proc/PID/stat."""
        return sum(self.thread_cpu_seconds().values())

    def thread_cpu_seconds(self) -> dict[str, float]:
        """CPU seconds so far of each thread in the tree, by "pid/command/thread id"."""
        found: dict[str, float] = {}
        for pid in self.pids():
            try:
                tasks = list(Path(f"/proc/{pid}/task").iterdir())
            except OSError:
                continue
            for task in tasks:
                try:
                    name = (task / "comm").read_text().strip()
                    nanoseconds = int((task / "schedstat").read_text().split()[0])
                except (OSError, IndexError, ValueError):
                    continue
                key = f"{pid}/{name}/{task.name}"
                found[key] = found.get(key, 0.0) + nanoseconds / 1e9
        return found

    def wakeups(self) -> int:
        """Context switches of the program's threads so far (voluntary and not): its wake-ups."""
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                for line in (task / "status").read_text().splitlines():
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
            except OSError:
                continue
        return total

    def close(self) -> None:
        """Quit the app as a closing window does (SIGTERM: it stops its MCP servers, which run in process
        groups of their own that a kill of its group never reaches), then kill whatever is left."""
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=15)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        os.close(self.master)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def drain_together(terminals: list[Terminal], seconds: float) -> None:
    """Keep reading every terminal's output for `seconds`, so none blocks while all sit idle."""
    end = time.perf_counter() + seconds
    while (left := end - time.perf_counter()) > 0:
        ready, _, _ = select.select([t.master for t in terminals], [], [], left)
        for terminal in terminals:
            if terminal.master in ready and not terminal._read(0):
                raise RuntimeError(f"{terminal.name} exited: {bytes(terminal.output[-800:])!r}")
