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
