"""At start, the app finishes a rewind that a killed process left half done and says so; checkpoints
past the retention period are dropped."""

from __future__ import annotations

import time

from app.checkpoints import records
from app.checkpoints.shadow import ShadowRepo
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.ui.helpers import booted, make_app, wait_for_text


def test_checkpoints_past_retention_expire(tmp_path):
    store = Store(tmp_path / "whimbrel.db")
    workstream_id = store.create_workstream(title="t")
    old, new = [records.add_checkpoint(store, workstream_id, user_message_id=None, user_seq=n, workspace="/w",
                                       before_tree="a", after_tree="b", changes=[], skipped=[], outside=[])
                for n in (1, 2)]
    with store.engine.begin() as conn:
        conn.execute("UPDATE checkpoints SET created_at = ? WHERE id = ?", (time.time() - 100 * 86400, old))
    assert records.expired_checkpoints(store, 90) == [(old, "/w")]
    assert records.expired_checkpoints(store, 0) == []  # 0 keeps them forever, as for workstreams
    records.delete_checkpoints(store, [old])
    assert [c.id for c in records.list_checkpoints(store, workstream_id)] == [new]
    store.close()


async def test_a_rewind_cut_short_is_finished_at_start_and_said(fake_openai, tmp_path):
    workspace, data = tmp_path / "ws", tmp_path / "data"
    workspace.mkdir()
    data.mkdir()
    (workspace / "a.txt").write_text("before\n")
    store = Store(data / "whimbrel.db")
    workstream_id = store.create_workstream(title="cut short", workdir=str(workspace))
    store.add_message(workstream_id, Message(role="user", content="change a"))
    repo = ShadowRepo(data, workspace)
    before = repo.snapshot().tree
    (workspace / "a.txt").write_text("after\n")
    after = repo.snapshot().tree
    records.add_checkpoint(store, workstream_id, user_message_id=None, user_seq=1, workspace=str(workspace),
                           before_tree=before, after_tree=after, changes=[], skipped=[], outside=[])
    # what a process killed right after journalling its rewind leaves behind
    records.begin_op(store, workstream_id, kind="rewind", mode="both", workspace=str(workspace),
                     from_tree=after, to_tree=before, cut_seq=1)
    store.close()
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(140, 40)) as pilot:
        await booted(pilot)
        await wait_for_text(pilot, "stopped in the middle of a rewind; it was completed now")
    assert (workspace / "a.txt").read_text() == "before\n"
    store = Store(data / "whimbrel.db")
    assert store.load_messages(workstream_id) == [] and records.pending_ops(store) == []
    store.close()
