"""Snapshots of what a crash or a lost store leaves on screen: a resumed conversation whose reply was
cut (partial text kept, marked interrupted), a call that never got its approval (not run), a turn that
ended before any answer, and the store deleted under a running app."""

from __future__ import annotations

import json
from pathlib import Path

from app.storage.store import Store
from app.vocabulary.messages import Message, ToolCall
from tests.snapshots.test_workstream_screens import SIZE, steady
from tests.ui.helpers import make_app, wait_for
from widgets.transcript import Transcript

PARTIAL = "Here is the summary so far: the notes describe three steps, and the first one gathers"


def saved_conversation(tmp_path, messages: list[Message]) -> str:
    store = Store(tmp_path / "data" / "whimbrel.db")
    workstream_id = store.create_workstream(title="crashed", model="fake-model", workdir="/w")
    for message in messages:
        store.add_message(workstream_id, message)
    store.close()
    return workstream_id


def test_resumed_after_a_crash_mid_reply_and_mid_approval(snap_compare, tmp_path):
    plan = ToolCall("call_1", "write_file", json.dumps({"path": "plan.txt", "content": "step one\n"}))
    workstream_id = saved_conversation(tmp_path, [
        Message(role="user", content="Summarize the notes"),
        Message(role="assistant", content=PARTIAL, interrupted=True),
        Message(role="user", content="Write the plan down"),
        Message(role="assistant", content="I will write it.", tool_calls=[plan]),
    ])
    assert snap_compare(make_app(tmp_path, resume=workstream_id[:8]), terminal_size=SIZE, run_before=steady)


def test_resumed_after_a_crash_before_any_answer(snap_compare, tmp_path):
    workstream_id = saved_conversation(tmp_path, [Message(role="user", content="Summarize the notes")])
    assert snap_compare(make_app(tmp_path, resume=workstream_id[:8]), terminal_size=SIZE, run_before=steady)


def test_store_deleted_while_running(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await steady(pilot)
        app = pilot.app
        # The store now looks at a path where no file is (as after a deletion), fixed so that the
        # path shown does not change from run to run; tests/e2e deletes a real store file.
        app.store.store.path = Path("/home/ada/.local/share/whimbrel/whimbrel.db")
        await app.store.set_app_state("focused", app.focused_id)  # the next write
        await wait_for(pilot, lambda: any("was deleted" in str(w.render()) for w in
                                          app.query_one(Transcript).children), message="notice")
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)
