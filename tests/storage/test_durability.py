"""A writer killed with SIGKILL loses nothing it had reported as written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from app.storage.store import Store

CHILD = Path(__file__).with_name("durability_child.py")
ROOT = Path(__file__).resolve().parents[2]


def test_sigkilled_writer_keeps_every_reported_message(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    store = Store(path)
    ws = store.create_workstream()
    store.close()

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, str(CHILD), str(path), ws],
                             stdout=subprocess.PIPE, text=True, env=env)
    reported = 0
    try:
        assert child.stdout is not None
        for line in child.stdout:
            reported = int(line.split()[1])
            if reported >= 25:
                break
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert reported >= 25, "the child stopped before writing anything"

    messages = Store(path).load_messages(ws)
    assert len(messages) >= reported
    assert [m.content for m in messages[:reported]] == [f"turn {n}" for n in range(1, reported + 1)]
    assert all(len(m.tool_calls) == 1 for m in messages)  # no half-written turn
