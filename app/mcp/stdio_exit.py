"""How a stdio server ended: its exit status and the last lines of its stderr, in words.

The SDK keeps the server's process to itself, so the status is learnt from a thin `/bin/sh` parent
that runs the server (not `exec`: it waits) and writes one marked line to the server's stderr when
the server exits. It also writes its own pid first: the SDK starts it as the leader of a new session,
so that pid names the server's process group, which `end_process_group` kills when a connection
ends with the group still alive (a handshake cancelled twice defeats the SDK's own shielded kill). `exit_reason` turns that line and the stderr before it into the reason the user
reads, instead of the SDK's "Connection closed (code -32000)".
"""

from __future__ import annotations

import os
import asyncio
import re
import shutil
import signal

OWN_LINE = "[whimbrel] "  # the wrapper's own lines start so; they are not the server's stderr
MARK = "[whimbrel] the server process exited with status"
GROUP_MARK = "[whimbrel] the server process group is"
# $? is 128+N when the server died of signal N; the wrapper keeps the server's status as its own
_WRAPPER = f'echo "{GROUP_MARK} $$" >&2; "$@"; s=$?; echo "{MARK} $s" >&2; exit $s'
_STATUS = re.compile(re.escape(MARK) + r" (\d+)\s*$", re.MULTILINE)
_GROUP = re.compile(re.escape(GROUP_MARK) + r" (\d+)\s*$", re.MULTILINE)
TERM_GRACE = 1.0  # seconds between SIGTERM and SIGKILL for a group that outlived its connection
TAIL_LINES = 3


def wrapped_command(command: str, args: list[str], path: str | None = None) -> tuple[str, list[str]]:
    """(command, args) that run the server under the status-reporting shell; unchanged where there
    is no POSIX shell or the command is not on `path` (the spawn then fails with the usual words)."""
    shell = "/bin/sh"
    if os.name != "posix" or not os.path.exists(shell) or shutil.which(command, path=path) is None:
        return command, args
    return shell, ["-c", _WRAPPER, "sh", command, *args]


def exit_status(stderr: str) -> int | None:
    """The status the wrapper reported, or None (the server has not exited, or ran unwrapped)."""
    found = _STATUS.findall(stderr)
    return int(found[-1]) if found else None


def _status_words(status: int) -> str:
    if status > 128:
        try:
            name = signal.Signals(status - 128).name
        except ValueError:
            name = f"signal {status - 128}"
        return f"was killed by {name} (status {status})"
    return f"exited with status {status}"


def last_lines(stderr: str, count: int = TAIL_LINES) -> list[str]:
    """The last `count` non-blank lines of stderr, without the wrapper's own line."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip() and not line.startswith(OWN_LINE)]
    return lines[-count:]


def exit_reason(stderr: str, fallback: str) -> str:
    """'the server process exited with status 3; its stderr ended with: …' (or `fallback` with the
    stderr lines when no status was reported)."""
    status = exit_status(stderr)
    tail = last_lines(stderr)
    said = f"; its stderr ended with: {' | '.join(line[:300] for line in tail)}" if tail else \
        "; it wrote nothing to stderr"
    if status is None:
        return fallback + (said if tail else "")
    return f"the server process {_status_words(status)}{said}"


def process_group(stderr_head: str) -> int | None:
    """The server's process group, as the wrapper wrote it first on stderr; None when unwrapped."""
    found = _GROUP.search(stderr_head)
    return int(found.group(1)) if found else None


def group_alive(pgid: int) -> bool:
    """Whether any live process of the group is left. A zombie (dead, not yet reaped) is not: where the
    server's orphans go to a parent that never reaps them (some containers' init), waiting for the group
    to vanish would wait out every grace period. Without /proc, any member counts."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    members = _members(pgid)
    return members is None or any(state != "Z" for state in members)


def _members(pgid: int) -> list[str] | None:
    """The states (R, S, Z …) of the group's processes from /proc; None where /proc cannot tell."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    states = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if len(fields) > 2 and int(fields[2]) == pgid:
            states.append(fields[0].decode())
    return states if states else None


async def end_process_group(pgid: int, grace: float = TERM_GRACE) -> None:
    """SIGTERM the group, SIGKILL what is left after `grace`; at once with SIGKILL when cancelled.

    Called after the SDK's own shutdown, so normally the group is gone and nothing is sent."""
    if pgid <= 1 or not group_alive(pgid):
        return
    try:
        os.killpg(pgid, signal.SIGTERM)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while group_alive(pgid) and loop.time() < deadline:
            await asyncio.sleep(0.02)
    finally:
        if group_alive(pgid):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
