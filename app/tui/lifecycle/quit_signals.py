"""SIGTERM and SIGHUP quit Whimbrel the way Ctrl+Q does, instead of killing it where it stands.

Killed by a signal's default action, the process would leave the terminal in the alternate
screen with mouse reporting on and the cursor hidden, orphan its MCP stdio servers (they run in
their own sessions, so the signal never reaches them) and lose what was still being saved. With
these handlers the app exits normally: its shutdown ends the turns (saving partial replies and
cancelled calls, killing running commands), stops the MCP servers and restores the terminal.
The exit status is the shell's convention for a signal, 128 + its number (143, 129).
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def exit_status(signum: int) -> int:
    """What a shell reports for a process stopped by `signum`."""
    return 128 + signum


def install(app: Any) -> None:
    """On the app's running loop: each quit signal asks the app to exit (a repeat changes nothing).

    Outside the main thread (an app run from a thread in tests) signals cannot be handled here,
    and the defaults stay.
    """
    loop = asyncio.get_running_loop()
    for signum in QUIT_SIGNALS:
        try:
            loop.add_signal_handler(signum, _quit, app, signum)
        except (RuntimeError, ValueError, NotImplementedError):
            return


def uninstall() -> None:
    """Give the signals their default action back (the app has shut down; a test loop may go on)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    for signum in QUIT_SIGNALS:
        try:
            loop.remove_signal_handler(signum)
        except (RuntimeError, ValueError, NotImplementedError):
            return


def _quit(app: Any, signum: int) -> None:
    if getattr(app, "quit_signal", None) is None:
        app.quit_signal = signum
        app.exit(return_code=exit_status(signum))
