"""A pytest plugin that fails the run when a process a test started outlives the session, and names it.

Every process a test starts inherits an environment variable naming this session and the test
(grandchildren too, even once reparented to PID 1). At the end of the session /proc is scanned
for it: stragglers get a short grace to exit, then are reported (pid, command line, test) and
killed, and the exit status becomes non-zero. A process started with an environment that drops
the variable (`env={...}` without os.environ) cannot be traced.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

MARK = "WHIMBREL_TEST_STARTED_BY"
GRACE_SECONDS = 5.0
_session = uuid.uuid4().hex
_stragglers: list[Straggler] = []


@dataclass(frozen=True)
class Straggler:
    """A process still alive at the end of the session, and the test that was running when it started."""

    pid: int
    command: str
    test: str


def _mark(where: str) -> None:
    os.environ[MARK] = f"{_session} {where}"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # gone meanwhile, or not ours to read
        return b""


def find_stragglers() -> list[Straggler]:
    """Living processes (not this one) whose environment carries this session's mark."""
    prefix = f"{MARK}={_session} ".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for variable in _read(entry / "environ").split(b"\0"):
            if variable.startswith(prefix):
                command = _read(entry / "cmdline").replace(b"\0", b" ").decode(errors="replace").strip()
                test = variable[len(prefix):].decode(errors="replace")
                found.append(Straggler(int(entry.name), command, test))
                break
    return found


def _wait_until_gone(deadline: float) -> list[Straggler]:
    """Poll until no straggler is left or the deadline passes; those still alive."""
    while (left := find_stragglers()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _kill(stragglers: list[Straggler]) -> None:
    for straggler in stragglers:
        try:
            os.kill(straggler.pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        try:
            os.waitpid(straggler.pid, 0)  # reap it if it is our own child
        except ChildProcessError:
            pass
    _wait_until_gone(time.monotonic() + GRACE_SECONDS)


def pytest_configure(config: pytest.Config) -> None:
    _mark("(collection)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _mark(item.nodeid)
    yield
    _mark("(between tests)")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    _mark("(session end)")
    _stragglers[:] = _wait_until_gone(time.monotonic() + GRACE_SECONDS)
    if _stragglers:
        _kill(_stragglers)
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    if not _stragglers:
        return
    terminalreporter.section("processes left running by tests", sep="=", red=True, bold=True)
    for straggler in _stragglers:
        terminalreporter.line(f"pid {straggler.pid}: {straggler.command}  (started during {straggler.test})",
                              red=True)
    terminalreporter.line(f"{len(_stragglers)} process(es) outlived the session and were killed; "
                          "the run fails. Stop what a test starts in a finally (tests/subprocesses.py).")
