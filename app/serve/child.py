"""The served app's side: a window started by `whimbrel serve` for one browser tab ends with its server.

The server ends each tab's app when the tab closes, and every one when it stops; this covers the
server dying without a word (SIGKILL, a crash): the kernel sends the app SIGTERM then (Linux's
parent-death signal), which the web driver turns into a quit. Elsewhere it is a no-op.
"""

from __future__ import annotations

import os
import signal
import sys

SERVED_BY = "WHIMBREL_SERVED_BY"  # the server's pid, set in the environment of the apps it starts
_PR_SET_PDEATHSIG = 1


def die_with_server() -> None:
    """When this process was started by `whimbrel serve`, end it when that server ends."""
    server = os.environ.pop(SERVED_BY, "")  # the app's own children are not the server's
    if not server.isdigit() or not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the server's own stop still ends the app
        return
    if os.getppid() != int(server):  # the server died before the signal was asked for
        os.kill(os.getpid(), signal.SIGTERM)
