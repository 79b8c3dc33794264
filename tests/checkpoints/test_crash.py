"""A rewind killed with SIGKILL at any point: the next start finds it journalled, finishes it, says so.

The rewind runs in a real child process that kills itself (SIGKILL) at the named point; the test
then does what the app does at start (`recover`) and compares files and conversation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.checkpoints import records
from app.checkpoints.rewind import recover
from app.checkpoints.shadow import ShadowRepo
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.checkpoints.harness import tree_state

ROOT = Path(__file__).resolve().parents[2]


def one_turn(tmp_path: Path) -> tuple[Path, Path, str, dict, dict]:
    """A workstream with one checkpointed turn that edited, created and deleted files."""
    workspace, data_dir = tmp_path / "ws", tmp_path / "data"
    workspace.mkdir()
    data_dir.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (workspace / name).write_text(f"{name} before\n")
    store = Store(data_dir / "whimbrel.db")
    workstream_id = store.create_workstream(title="t", workdir=str(workspace))
    store.add_message(workstream_id, Message(role="user", content="change things"))
    repo = ShadowRepo(data_dir, workspace)
    before_state, before = tree_state(workspace), repo.snapshot().tree
    (workspace / "a.txt").write_text("a after\n")
    (workspace / "c.txt").unlink()
    (workspace / "new.txt").write_text("new\n")
    store.add_message(workstream_id, Message(role="assistant", content="changed"))
    after_state, after = tree_state(workspace), repo.snapshot().tree
    records.add_checkpoint(store, workstream_id, user_message_id=None, user_seq=1, workspace=str(workspace),
                           before_tree=before, after_tree=after, changes=[], skipped=[], outside=[])
    store.close()
    return workspace, data_dir, workstream_id, before_state, after_state


def run_child(data_dir: Path, workspace: Path, workstream_id: str, point: str, kind: str = "rewind") -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "checkpoints" / "crash_child.py"), str(data_dir),
                           str(workspace), workstream_id, point, kind], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == -9, (done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("point", ["before-files", "mid-files", "before-commit"])
def test_a_killed_rewind_is_finished_at_the_next_start(tmp_path, point):
    workspace, data_dir, workstream_id, before_state, after_state = one_turn(tmp_path)
    run_child(data_dir, workspace, workstream_id, point)
    store = Store(data_dir / "whimbrel.db")
    assert [op.state for op in records.pending_ops(store)] == ["pending"]
    said = recover(store, lambda w: ShadowRepo(data_dir, Path(w)))
    assert len(said) == 1 and "stopped in the middle of a rewind" in said[0] and "2 message(s) removed" in said[0]
    assert tree_state(workspace) == before_state
    assert store.load_messages(workstream_id) == []
    assert records.pending_ops(store) == [] and recover(store, lambda w: ShadowRepo(data_dir, Path(w))) == []
    store.close()


def test_a_killed_undo_is_finished_at_the_next_start(tmp_path):
    workspace, data_dir, workstream_id, before_state, after_state = one_turn(tmp_path)
    run_child(data_dir, workspace, workstream_id, "before-commit")  # a rewind, finished by recover
    store = Store(data_dir / "whimbrel.db")
    recover(store, lambda w: ShadowRepo(data_dir, Path(w)))
    store.close()
    run_child(data_dir, workspace, workstream_id, "mid-files", kind="undo")
    store = Store(data_dir / "whimbrel.db")
    said = recover(store, lambda w: ShadowRepo(data_dir, Path(w)))
    assert "undo of a rewind" in said[0] and "2 message(s) put back" in said[0]
    assert tree_state(workspace) == after_state
    assert [m.content for m in store.load_messages(workstream_id)] == ["change things", "changed"]
    store.close()
