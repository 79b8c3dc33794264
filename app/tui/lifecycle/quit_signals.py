"""SIGTERM and SIGHUP quit Whimbrel the way Ctrl+Q does, instead of killing it where it stands.

Killed by a signal's default action, the process would leave the terminal in the alternate
screen with mouse reporting on and the cursor hidden, orphan its MCP stdio servers (they run in
their own sessions, so the signal never reaches them) and lose what was still being saved. With
these handlers the app exits normally: its shutdown ends the turns (saving partial replies and
cancelled calls, killing running commands), stops the MCP servers and restores the terminal.
The exit status is the shell's convention for a signal, 128 + its number (143, 129).

A quit signal must end the process whatever state it is in, so three more things are done:
- the handler is a plain `signal.signal` one, which runs on the main thread even while it waits on
  a lock (the event loop may be the thing that is stuck), and hands the exit to the loop;
- a closing terminal sends SIGCONT after SIGHUP, to which Textual answers by taking the terminal
  over again with a new writer thread: after a quit signal SIGCONT does nothing more;
- a last resort: if the clean exit has not finished LAST_RESORT_SECONDS after the signal, a thread
  restores the terminal as well as it can, kills the processes it started (MCP servers, commands: each
  with its process group) and ends the process with `os._exit(128 + signal)`.
Before the app's handlers are installed (and after they are removed) the default action applies:
the process ends at once, and the terminal has not been taken over yet (or is given back already).
"""

from __future__ import annotations

import os
import signal
import sys
import termios
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
LAST_RESORT_SECONDS = 3.0
# Leave the alternate screen, show the cursor, stop mouse and focus reports and bracketed paste.
RESTORE_TERMINAL = (b"\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l\x1b[?1000l\x1b[?1003l\x1b[?1015l"
                    b"\x1b[?1006l\x1b[?2004l\x1b[?7h")

_finished = threading.Event()  # set when the app's run is over: the last resort stands down
_armed = threading.Lock()
_terminal_before: list[Any] | None = None
_bounded = False  # only a run from the command line ends the process (never a test's)


def exit_status(signum: int) -> int:
    """What a shell reports for a process stopped by `signum`."""
    return 128 + signum


def install(app: Any) -> None:
    """Each quit signal asks the app to exit (a repeat changes nothing), from the app's loop.

    Called on the app's loop before the terminal is taken over; the terminal's settings are kept
    for the last resort. Outside the main thread (an app run from a thread in tests) signals cannot
    be handled here, and the defaults stay.
    """
    global _terminal_before
    import asyncio

    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    if _armed.locked():
        _armed.release()
    try:
        _terminal_before = termios.tcgetattr(sys.__stdin__.fileno())
    except (termios.error, OSError, AttributeError, ValueError):
        _terminal_before = None

    def handle(signum: int, _frame: Any) -> None:
        _arm_last_resort(signum)
        try:
            loop.call_soon_threadsafe(_quit, app, signum)
        except RuntimeError:  # the loop is closed: the clean exit is over or cannot happen
            pass

    for signum in QUIT_SIGNALS:
        signal.signal(signum, handle)


@contextmanager
def bounded_exit() -> Iterator[None]:
    """Around the command line's `app.run()`: after a quit signal the process ends within
    LAST_RESORT_SECONDS, cleanly or not."""
    global _bounded
    _finished.clear()
    _bounded = True
    try:
        yield
    finally:
        _finished.set()
        _bounded = False
        uninstall()


def uninstall() -> None:
    """Give the signals their default action back (the app has shut down; a test loop may go on).

    Within `bounded_exit` the handlers stay until the run is over: Textual gives the terminal back
    after the app's unmount, and a signal then must not kill the process with the terminal taken."""
    if _bounded or threading.current_thread() is not threading.main_thread():
        return
    for signum in QUIT_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


def _arm_last_resort(signum: int) -> None:
    """Once per quit: no more SIGCONT resumes, and the bounded exit armed."""
    if not _armed.acquire(blocking=False):
        return
    signal.signal(signal.SIGCONT, _resume_nothing)
    if _bounded:
        threading.Thread(target=_last_resort, args=(signum,), name="quit-last-resort", daemon=True).start()


def _resume_nothing(_signum: int, _frame: Any) -> None:
    """SIGCONT after a quit signal: the process continues (the kernel does that), the app does not
    take the terminal over again. A handler rather than SIG_DFL: a SIGCONT already pending would
    otherwise be reported as ignored on the terminal."""


def _last_resort(signum: int) -> None:
    if _finished.wait(LAST_RESORT_SECONDS):
        return
    restore_terminal()
    end_children()
    os._exit(exit_status(signum))


def end_children() -> None:
    """Kill what this process started and has not stopped yet (MCP stdio servers, commands), each with
    the process group it leads (a server runs in its own): the last resort must not orphan them."""
    me = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()  # state, ppid, pgrp, …
        except (OSError, IndexError):
            continue
        if len(fields) < 3 or int(fields[1]) != me:
            continue
        pid, group = int(entry), int(fields[2])
        try:
            if group == pid:
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def restore_terminal() -> None:
    """Give the terminal back without waiting on it: its settings, then the escape codes to leave
    the app's modes (dropped if the terminal is gone or will not take them now)."""
    try:
        fd = sys.__stdout__.fileno()
    except (AttributeError, OSError, ValueError):
        return
    if _terminal_before is not None:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, _terminal_before)
        except (termios.error, OSError):
            pass
    try:
        os.set_blocking(fd, False)
        os.write(fd, RESTORE_TERMINAL)
    except OSError:
        pass


def _quit(app: Any, signum: int) -> None:
    if getattr(app, "quit_signal", None) is None:
        app.quit_signal = signum
        app.exit(return_code=exit_status(signum))
