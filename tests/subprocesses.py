"""Stop a process a test started, whatever happened in the test, so none outlives it.

SIGTERM first (SIGINT is no use: a suite started in the background by a script runs with
SIGINT ignored, and so do its children), SIGKILL if the process ignores that, then wait.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager


def stop_process(proc: subprocess.Popen, grace: float = 10.0) -> int:
    """Terminate `proc`, kill it if it is still alive after `grace` seconds, reap it; its exit code."""
    if proc.poll() is None:
        proc.terminate()
        try:
            return proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
    return proc.wait()


@contextmanager
def stopped_at_exit(proc: subprocess.Popen, grace: float = 10.0) -> Iterator[subprocess.Popen]:
    """Yield `proc`; on the way out (a failure included) stop it with stop_process()."""
    try:
        yield proc
    finally:
        stop_process(proc, grace)
