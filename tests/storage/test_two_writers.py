"""Two processes writing one store at once: no write fails on the lock, nothing is lost."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from app.storage.migrations import MIGRATIONS
from app.storage.store import Store

CHILD = Path(__file__).with_name("writer_child.py")
ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 150

OPEN_WHEN_TOLD = """
import sys, time
from pathlib import Path
from app.storage.store import Store
print("ready", flush=True)
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.002)
Store(Path(sys.argv[1])).close()
print("done", flush=True)
"""


def run_together(argvs: list[list[str]], go: Path, timeout: float) -> None:
    """Start one child per argv; once every one says "ready", create `go`; each must end saying "done"."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env) for argv in argvs]
    try:
        for child in children:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready", child.stderr.read()
        go.touch()
        outcomes = [child.communicate(timeout=timeout) for child in children]
    finally:
        for child in children:
            child.kill()
            child.wait()
    for child, (out, err) in zip(children, outcomes):
        assert child.returncode == 0 and out.strip() == "done", err[-3000:]


def test_two_processes_hammering_one_file_both_finish_with_every_row(tmp_path: Path) -> None:
    path, go = tmp_path / "shared.db", tmp_path / "go"
    store = Store(path)
    shared = store.create_workstream(title="shared")
    store.close()

    run_together([[str(CHILD), str(path), shared, label, str(ROUNDS), str(go)] for label in ("A", "B")], go, 100)

    store = Store(path)
    try:
        contents = [m.content for m in store.load_messages(shared)]
        history = store.prompt_history(shared, limit=10 * ROUNDS)
        others = {info.title: store.load_messages(info.id) for info in store.list_workstreams()
                  if info.id != shared}
    finally:
        store.close()
    for label in ("A", "B"):
        assert [c for c in contents if c.startswith(label)] == [f"{label} message {n}" for n in range(ROUNDS)]
        assert [h for h in history if h.startswith(label)] == [f"{label} prompt {n}" for n in range(ROUNDS)]
        assert [m.content for m in others[label]] == [f"{label} reply {n}" for n in range(ROUNDS)]
    assert len(contents) == 2 * ROUNDS


def test_processes_opening_a_new_file_at_once_all_open_it(tmp_path: Path) -> None:
    """Windows started together on a fresh data dir: each opens it, the schema is built once."""
    path, go = tmp_path / "fresh.db", tmp_path / "go"
    run_together([["-c", OPEN_WHEN_TOLD, str(path), str(go)] for _ in range(3)], go, 60)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(MIGRATIONS[-1][0],)]
    finally:
        conn.close()
