"""Run a real terminal program in a pseudo-terminal: spawn it, read its screen output, send keys.

End-to-end tests drive the installed `whimbrel` process exactly as a user's terminal would:
real key bytes in, real escape sequences out. The output is kept as one decoded stream and
searched for text (ANSI sequences stripped), which is enough to know what has been painted.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import Callable, Sequence

# CSI / OSC / two-byte escape sequences, as Textual writes them.
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_=>()][0-9A-Za-z]?")


def strip_ansi(text: str) -> str:
    """`text` without escape sequences (cursor moves become nothing, so words may run together)."""
    return ANSI.sub("", text)


def set_size(fd: int, columns: int, rows: int) -> None:
    """Give the terminal behind `fd` a fixed size, as a terminal emulator window would."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def stop_echo(fd: int) -> None:
    """No echo from the line discipline: keys typed before the program takes the terminal over show
    only once the program itself paints them."""
    attributes = termios.tcgetattr(fd)
    attributes[3] &= ~termios.ECHO  # lflag
    termios.tcsetattr(fd, termios.TCSANOW, attributes)


def _make_controlling_tty() -> None:
    """In the child: a new session whose controlling terminal is the pty on stdin."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyApp:
    """A program running in its own pty and process group.

    `output` is everything it printed so far (decoded, raw); `screen_text` is the same with
    escape sequences removed. Use as a context manager so the process group is always killed.
    With `echo=False` the terminal does not echo keys typed before the program takes it over.
    """

    def __init__(self, argv: Sequence[str], *, columns: int = 120, rows: int = 40,
                 env: dict[str, str] | None = None, cwd: str | Path | None = None, echo: bool = True) -> None:
        master, slave = os.openpty()
        set_size(slave, columns, rows)
        if not echo:
            stop_echo(slave)
        child_env = dict(os.environ if env is None else env)
        child_env.update(TERM="xterm-256color", COLUMNS=str(columns), LINES=str(rows))
        child_env.pop("TEXTUAL", None)  # no devtools
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            list(argv), stdin=slave, stdout=slave, stderr=slave, env=child_env, cwd=cwd,
            preexec_fn=_make_controlling_tty, close_fds=True,
        )
        os.close(slave)
        self.master = master
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.output = ""
        self._eof = False

    # -- reading ------------------------------------------------------------------------
    def pump(self, timeout: float = 0.05) -> bool:
        """Read whatever output is available within `timeout`; False once the pty is closed."""
        if self._eof:
            return False
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every slave end is closed (the process exited)
            data = b""
        if not data:
            self._eof = True
            self.output += self._decoder.decode(b"", final=True)
            return False
        self.output += self._decoder.decode(data)
        return True

    @property
    def screen_text(self) -> str:
        return strip_ansi(self.output)

    def wait_for(self, text: str, timeout: float = 30.0, *, since: int = 0) -> float:
        """Read until `text` appears in the stripped output (after character `since`).

        Returns the seconds since spawn; raises TimeoutError with the tail of the screen.
        """
        deadline = time.monotonic() + timeout
        checked = since
        while True:
            # Only re-scan what is new (plus an overlap for a match straddling two reads),
            # so a long streaming session does not make every poll quadratic.
            start = max(since, checked - 4096 - len(text))
            checked = len(self.output)
            if text in strip_ansi(self.output[start:]):
                return time.monotonic() - self.started
            if time.monotonic() > deadline or not self.pump(0.05):
                if text in strip_ansi(self.output[since:]):
                    return time.monotonic() - self.started
                tail = self.screen_text[-1500:]
                state = "exited" if self.process.poll() is not None else "running"
                raise TimeoutError(f"{text!r} did not appear within {timeout}s (process {state}); "
                                   f"screen tail:\n{tail}")

    def wait_until(self, predicate: Callable[[], object], timeout: float = 30.0, what: str = "condition") -> None:
        """Keep reading output (so the program never blocks on a full pty) until `predicate()`."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} not met within {timeout}s; screen tail:\n{self.screen_text[-1500:]}")
            self.pump(0.05)

    # -- writing ------------------------------------------------------------------------
    def send(self, keys: str) -> None:
        """Type `keys` as raw terminal bytes ('\\r' is Enter, '\\x11' is Ctrl+Q)."""
        os.write(self.master, keys.encode())

    def type_slowly(self, text: str, pause: float = 0.01) -> None:
        """Type `text` a character at a time, reading output in between, like a person would."""
        for char in text:
            self.send(char)
            self.pump(pause)

    # -- ending -------------------------------------------------------------------------
    def wait_exit(self, timeout: float = 10.0) -> int:
        """Drain output until the process exits; its return code (TimeoutError if it does not)."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"process still running after {timeout}s; screen tail:\n"
                                   f"{self.screen_text[-1500:]}")
            self.pump(0.05)
        return self.process.returncode

    def kill(self) -> None:
        """SIGKILL the whole process group (no cleanup runs: this is a crash)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait(timeout=10)

    def close(self) -> None:
        self.kill()
        try:
            os.close(self.master)
        except OSError:
            pass

    def __enter__(self) -> PtyApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
