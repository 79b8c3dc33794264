"""A pytest plugin that fails the run when a process a test started outlives the session, and names it.

Every process a test starts inherits an environment variable naming this session and the test
(grandchildren too, even once reparented to PID 1). At the end of the session /proc is scanned
for it: stragglers get a short grace to exit, then are reported (pid, command line, test) and
killed, and the exit status becomes non-zero.

A process started with an environment that drops the variable (the MCP SDK filters a stdio
server's environment) is found another way: this process makes itself a child subreaper, so
orphans of its descendants are re-parented to it rather than to PID 1, and every live descendant
(walked through /proc/PID/task/TID/children) is a straggler too, named by the test after which it
was first seen.

Under pytest-xdist every worker runs this check on its own processes (each worker is a subreaper
too) and hands what it found to the controller, which names them beside its own and fails the run.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
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
_first_seen: dict[tuple[int, str], str] = {}  # (pid, start time) of a descendant -> the test it appeared in
PR_SET_CHILD_SUBREAPER = 36


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


def become_subreaper() -> bool:
    """Adopt the orphans of our descendants (Linux); False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _stat(pid: int) -> tuple[str, str] | None:
    """(state letter, start time) of a process, None once it is gone."""
    fields = _read(Path(f"/proc/{pid}/stat")).rsplit(b")", 1)[-1].split()
    return (fields[0].decode(), fields[19].decode()) if len(fields) > 19 else None


def descendants(root: int | None = None) -> dict[int, str]:
    """Every live (not zombie) descendant of `root` (this process): pid -> start time."""
    found: dict[int, str] = {}
    todo = [root or os.getpid()]
    while todo:
        pid = todo.pop()
        try:  # the process may end while it is read: then it has no children left to find
            tasks = list(Path(f"/proc/{pid}/task").glob("*/children"))
        except OSError:
            continue
        for task in tasks:
            for child in _read(task).split():
                child_pid = int(child)
                stat = _stat(child_pid)
                if stat is not None and child_pid not in found:
                    todo.append(child_pid)
                    if stat[0] != "Z":
                        found[child_pid] = stat[1]
    return found


def _note_descendants(test: str) -> None:
    for pid, started in descendants().items():
        _first_seen.setdefault((pid, started), test)


def _command(pid: int) -> str:
    return _read(Path(f"/proc/{pid}/cmdline")).replace(b"\0", b" ").decode(errors="replace").strip()


def find_stragglers() -> list[Straggler]:
    """Living processes (not this one) whose environment carries this session's mark, and every
    live descendant of this one (named by the test after which it was first seen)."""
    prefix = f"{MARK}={_session} ".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for variable in _read(entry / "environ").split(b"\0"):
            if variable.startswith(prefix):
                test = variable[len(prefix):].decode(errors="replace")
                found.append(Straggler(int(entry.name), _command(int(entry.name)), test))
                break
    marked = {straggler.pid for straggler in found}
    for pid, started in descendants().items():
        if pid not in marked:
            test = _first_seen.get((pid, started), "(a test: its environment had no mark)")
            found.append(Straggler(pid, _command(pid), test))
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


def _reap_adopted() -> None:
    """Reap zombie children (orphans adopted as subreaper, and tests' unwaited children) at the end."""
    for task in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        for child in _read(task).split():
            stat = _stat(int(child))
            if stat is not None and stat[0] == "Z":
                try:
                    os.waitpid(int(child), os.WNOHANG)
                except ChildProcessError:
                    pass


def pytest_configure(config: pytest.Config) -> None:
    _mark("(collection)")
    become_subreaper()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _mark(item.nodeid)
    yield
    _note_descendants(item.nodeid)
    _mark("(between tests)")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    _mark("(session end)")
    _reap_adopted()
    found = _wait_until_gone(time.monotonic() + GRACE_SECONDS)
    if found:
        _kill(found)
    _stragglers.extend(found)
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports them and fails the run
        workeroutput["stragglers"] = [(s.pid, s.command, s.test) for s in found]
    if _stragglers and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """An xdist worker finished (or died): keep the stragglers it found (it has killed them)."""
    for pid, command, test in getattr(node, "workeroutput", {}).get("stragglers", ()):
        _stragglers.append(Straggler(pid, command, f"{test}, on worker {node.gateway.id}"))


def pytest_terminal_summary(terminalreporter) -> None:
    if not _stragglers:
        return
    terminalreporter.section("processes left running by tests", sep="=", red=True, bold=True)
    for straggler in _stragglers:
        terminalreporter.line(f"pid {straggler.pid}: {straggler.command}  (started during {straggler.test})",
                              red=True)
    terminalreporter.line(f"{len(_stragglers)} process(es) outlived the session and were killed; "
                          "the run fails. Stop what a test starts in a finally (tests/subprocesses.py).")
