"""Reading a bash line never hangs: `&>` (ordinary in `make test &>/dev/null`) once looped forever.

The check runs in a child process with a deadline, so a reader that loops fails this test by
timeout instead of hanging the test runner.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.permissions.shell import Unparseable, parse

HANGING = ["make test &>/dev/null", "make test &>>log", "ls &> out; echo done", "a &>/dev/null && b"]


@pytest.mark.parametrize("line", HANGING)
def test_policy_check_answers_a_line_with_ampersand_redirect(tmp_path: Path, line: str):
    (tmp_path / "config.toml").write_text('[policy]\nallow = ["bash(make test)"]\n')
    (tmp_path / "ws").mkdir()
    try:
        done = subprocess.run([sys.executable, "-m", "app.cli", "policy", "check", f"bash({line})",
                               "--config", str(tmp_path / "config.toml"), "--data-dir", str(tmp_path / "data"),
                               "--workdir", str(tmp_path / "ws")], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`whimbrel policy check` hung on {line!r}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(":", 1)[0] in ("allow", "ask", "deny")


def test_parse_returns_within_a_deadline_on_a_thread():
    """The same lines, read in this process on a thread that must finish in time."""
    results: list[object] = []

    def read_all() -> None:
        for line in HANGING:
            try:
                results.append(parse(line))
            except Unparseable as error:
                results.append(error)

    worker = threading.Thread(target=read_all, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "the reader did not return"
    assert len(results) == len(HANGING)


def _bash_call(command: str):
    from app.vocabulary.messages import ToolCall
    from tools.pipeline import PreparedCall

    return PreparedCall(ToolCall("c1", "bash", "{}"), None, {"command": command})


async def test_the_engine_reads_a_command_off_the_event_loop():
    """While a long line is read (a few hundred ms of CPU), the event loop keeps running other work: the
    reading is on a thread. (A wall-clock bound per gap would be flaky on a loaded machine; ticks that
    happen during the reading cannot happen if the reading blocks the loop.)"""
    import asyncio
    import time

    from app.engine.gating import read_off_loop

    await read_off_loop(_bash_call("ls"))  # the grammar's one-time load, as at the first command of a session
    line = "; ".join(f"echo ${{x{i}:-$(printf {i})}} > f{i}" for i in range(2000))
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    ticking = asyncio.create_task(ticker())
    late = await read_off_loop(_bash_call(line))
    done.set()
    await ticking
    assert late is None
    print(f"longest event-loop gap while reading: {max(gaps) * 1000:.0f} ms over {len(gaps)} ticks")
    assert len(gaps) >= 3, "the event loop did not run while the line was read"


async def test_a_reading_past_the_engines_deadline_is_asked_about(monkeypatch):
    from app.engine import gating

    monkeypatch.setattr(gating, "READ_DEADLINE", 0.0)
    late = await gating.read_off_loop(_bash_call("echo " + "a " * 40_000 + "; git status"))
    assert late and "took longer than" in late
    asked = gating.late_verdict(late, None, _bash_call("x"))
    refused = gating.late_verdict(late, "nobody can approve {tool} here", _bash_call("x"))
    assert (asked.outcome, refused.outcome) == ("ask", "deny") and "nobody can approve bash" in refused.why
