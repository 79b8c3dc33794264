"""A write the disk refuses is told apart from a bug, and said with its likely cause."""

from __future__ import annotations

import errno
import os

import pytest

from app.storage.store import Store
from app.storage.write_failed import is_write_failure, write_failure
from app.vocabulary.messages import Message


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file modes")
def test_a_read_only_store_is_a_write_failure_with_its_cause(tmp_path):
    path = tmp_path / "whimbrel.db"
    store = Store(path)
    ws = store.create_workstream(title="t")
    store.close()
    path.chmod(0o400)
    reader = Store(path)
    with pytest.raises(Exception) as raised:
        reader.add_message(ws, Message(role="user", content="x"))
    reader.close()
    words = write_failure(raised.value, path)
    assert words is not None and words.startswith(f"writing to {path} failed")


def test_disk_errors_are_write_failures_and_bugs_are_not(tmp_path):
    full = OSError(errno.ENOSPC, "No space left on device")
    assert is_write_failure(full) and is_write_failure(OSError(errno.EFBIG, "File too large"))
    assert write_failure(full, tmp_path / "whimbrel.db").startswith(f"writing to {tmp_path / 'whimbrel.db'} failed (")
    assert not is_write_failure(ValueError("a bug")) and write_failure(KeyError("k"), None) is None
    assert not is_write_failure(OSError(errno.ENOENT, "gone"))
