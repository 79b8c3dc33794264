"""SIGHUP and SIGTERM end Whimbrel within 5 s at any moment of its start-up, the terminal restored.

The installed `whimbrel` runs in a real pty. The signal is sent before the first frame, right after
it, while boot runs (boot starts once the first frame is complete and takes most of a second), once
the workspace is restored, and with a turn streaming. A closing terminal is also tried for real: the
pty's master end is closed, so the kernel hangs the terminal up and sends SIGHUP and SIGCONT, which
left the process alive for good (blocked on a terminal writer) in about half the tries.

Each case measures from the signal to the process being gone; the deadline is the requirement
itself (5 s), which the app's last resort (app/tui/lifecycle/quit_signals.py) keeps even when a
clean exit would take longer on a loaded machine.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp, strip_ansi
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.e2e.test_quit_signals import assert_terminal_restored
from tests.fake_llm.script import SlowReply

GONE_WITHIN = 5.0  # seconds from the signal
SIGNALS = pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
ALTERNATE_SCREEN = "\x1b[?1049h"

pytestmark = e2e_marks(300)


def seconds_until_gone(app: PtyApp, *, read: bool = True) -> float:
    """Seconds from now until the process has exited (reading its output meanwhile when `read`);
    fails once GONE_WITHIN has passed, and the fixture's PtyApp kills it."""
    sent = time.monotonic()
    while app.process.poll() is None:
        waited = time.monotonic() - sent
        assert waited < GONE_WITHIN, f"still running {waited:.1f}s after the signal"
        if read:
            app.pump(0.02)
        else:
            time.sleep(0.02)
    return time.monotonic() - sent


def signal_and_check(app: PtyApp, signum: int) -> None:
    """Send `signum`, then: gone within the deadline, exit status 128 + signal (or killed by the
    signal itself before Whimbrel handles it), the terminal restored if it was taken over."""
    since = len(app.output)
    os.kill(app.process.pid, signum)
    seconds_until_gone(app)
    while app.pump(0.02):  # whatever was written before the end
        pass
    status = app.process.returncode
    assert status in (128 + signum, -signum), f"exit status {status}: {strip_ansi(app.output[since:])[-3000:]}"
    if ALTERNATE_SCREEN in app.output:
        after = app.output[since:] if ALTERNATE_SCREEN in app.output[:since] else app.output
        assert_terminal_restored(after)
    assert "Traceback" not in app.output[since:], strip_ansi(app.output[since:])[-2000:]


def start(fake_openai, tmp_path: Path) -> PtyApp:
    workdir, data_dir = places(tmp_path)
    return PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir))


@SIGNALS
def test_a_signal_before_the_first_frame(fake_openai, tmp_path: Path, signum) -> None:
    with start(fake_openai, tmp_path) as app:
        signal_and_check(app, signum)


@SIGNALS
@pytest.mark.parametrize("delay", [0.0, 0.15, 0.4, 0.8], ids=["at-once", "0.15s", "0.4s", "0.8s"])
def test_a_signal_right_after_the_first_frame_and_during_boot(fake_openai, tmp_path: Path, signum,
                                                               delay) -> None:
    with start(fake_openai, tmp_path) as app:
        app.wait_for("Ask for work", timeout=60)
        until = time.monotonic() + delay
        while time.monotonic() < until:
            app.pump(0.01)
        signal_and_check(app, signum)


@SIGNALS
def test_a_signal_once_the_workspace_is_restored(fake_openai, tmp_path: Path, signum) -> None:
    with start(fake_openai, tmp_path) as app:
        wait_until_ready(app)
        signal_and_check(app, signum)


@SIGNALS
def test_a_signal_with_a_turn_streaming(fake_openai, tmp_path: Path, signum) -> None:
    fake_openai.queue(SlowReply("word " * 2000, delay=0.05, chunk_size=5))
    with start(fake_openai, tmp_path) as app:
        wait_until_ready(app)
        app.send("Talk for a while")
        app.wait_for("Talk for a while", timeout=20)
        app.send("\r")
        app.wait_for("word word word", timeout=60)
        signal_and_check(app, signum)


@pytest.mark.parametrize("delay", [0.0, 0.15, 0.4], ids=["at-once", "0.15s", "0.4s"])
def test_closing_the_terminal_as_the_first_frame_shows_ends_the_app(fake_openai, tmp_path: Path, delay) -> None:
    """The terminal closes (SIGHUP, then SIGCONT, and every write fails): the process still ends."""
    with start(fake_openai, tmp_path) as app:
        app.wait_for("Ask for work", timeout=60)
        until = time.monotonic() + delay
        while time.monotonic() < until:
            app.pump(0.01)
        master, app.master = app.master, os.open(os.devnull, os.O_RDONLY)  # for PtyApp.close to close
        os.close(master)  # the terminal window closes
        seconds_until_gone(app, read=False)
        assert app.process.returncode in (128 + signal.SIGHUP, -signal.SIGHUP), app.process.returncode


@pytest.mark.parametrize("delay", [0.0, 0.15], ids=["at-once", "0.15s"])
def test_sighup_then_sigcont_as_a_closing_terminal_sends_them_gives_the_terminal_back(
        fake_openai, tmp_path: Path, delay) -> None:
    """The SIGCONT that follows the SIGHUP does not make the app take the terminal over again."""
    with start(fake_openai, tmp_path) as app:
        app.wait_for("Ask for work", timeout=60)
        until = time.monotonic() + delay
        while time.monotonic() < until:
            app.pump(0.01)
        since = len(app.output)
        os.kill(app.process.pid, signal.SIGHUP)
        os.kill(app.process.pid, signal.SIGCONT)
        seconds_until_gone(app)
        while app.pump(0.02):
            pass
        assert app.process.returncode == 128 + signal.SIGHUP, app.process.returncode
        after = app.output[since:]
        assert_terminal_restored(after)
        assert ALTERNATE_SCREEN not in after.rsplit("\x1b[?1049l", 1)[-1], "the terminal was taken over again"
        assert "Traceback" not in after and "ignored" not in strip_ansi(after), strip_ansi(after)[-2000:]


def test_the_last_resort_ends_the_servers_it_started() -> None:
    """Before its `os._exit`, the last resort kills the processes the app started, each with the process
    group it leads (an MCP stdio server runs in one of its own, out of reach of a signal to the app)."""
    import subprocess
    import sys

    program = ("import subprocess; from app.tui.lifecycle.quit_signals import end_children\n"
               "server = subprocess.Popen(['sh', '-c', 'sleep 60 & wait'], start_new_session=True)\n"
               "print(server.pid, flush=True)\n"
               "end_children()\n"
               "print('status', server.wait(timeout=30), flush=True)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "status -9"  # killed, with the sleep of its group
