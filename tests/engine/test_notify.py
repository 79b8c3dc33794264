"""notify through the turn loop: runs without approval, reaches the frontend as an event, and uses
notify-send where a desktop session has one."""

from __future__ import annotations

import json
import os

from app.engine import events as ev
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply


async def test_notify_reaches_the_user_without_approval(fake_openai, tmp_path, monkeypatch):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sent = tmp_path / "sent.txt"
    fake = bin_dir / "notify-send"  # a stand-in desktop: records what it was asked to show
    fake.write_text(f"#!/bin/sh\nprintf '%s|' \"$@\" > {sent}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":0")
    fake_openai.queue(ToolCallReply([("notify", json.dumps({"message": "The build\x1b[31m finished."}), "n1")]),
                      TextReply("Told you."))
    recorder = Recorder(decide=None)  # an approval would hang the turn: there must be none
    session, store = await make_session(fake_openai, workspace, tmp_path, recorder)
    await session.run_turn("tell me when done")
    assert [e.message for e in recorder.of(ev.UserNotified)] == ["The build\x1b[31m finished."]
    result = recorder.of(ev.ToolResultReady)[0]
    assert result.output == "Notified the user (desktop notification sent)." and not recorder.approvals
    assert sent.read_text() == "--app-name=Whimbrel|--|Whimbrel|The build[31m finished.|"
    await shutdown(session, store)
