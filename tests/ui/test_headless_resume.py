"""A headless run is a workstream like any other: the TUI resumes it, and a headless run resumes the TUI's."""

from __future__ import annotations

import pytest

import json

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.headless.helpers import model_flags, run_whimbrel
from tests.ui.helpers import make_app, screen_text, submit, wait_for
from widgets.tool_card import ToolCard


@pytest.mark.loop_held_known("the test runs `whimbrel run` with subprocess.run on the loop")
async def test_the_tui_resumes_a_headless_run_and_a_headless_run_resumes_the_tui(fake_openai, tmp_path, monkeypatch):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("hello\n")
    monkeypatch.setenv("WHIMBREL_DATA_DIR", str(tmp_path / "data"))  # the data dir make_app uses
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.md"}), "r1")]),
                      TextReply("The notes say hello."))
    done = run_whimbrel(workspace, "--output", "json", *model_flags(fake_openai.base_url), "what do the notes say?")
    assert done.returncode == 0, done.stderr
    workstream_id = json.loads(done.stdout)["workstream_id"]

    app = make_app(tmp_path, fake_openai.base_url, resume=workstream_id[:8])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "The notes say hello." in screen_text(app), message="headless reply shown")
        assert "what do the notes say?" in screen_text(app)
        [card] = app.screen.query(ToolCard)
        assert card.tool_name == "read_file" and card.status == "done"
        fake_openai.queue(TextReply("Asked in the window."))
        await submit(pilot, "and in the window?")
        await wait_for(pilot, lambda: "Asked in the window." in screen_text(app), message="TUI turn")
        await wait_for(pilot, lambda: app.workstream.state == "idle", message="turn finished")

    again = run_whimbrel(workspace, "--resume", workstream_id, "--output", "json", *model_flags(fake_openai.base_url),
                         "and headless again")
    assert again.returncode == 0, again.stderr
    sent = [m.get("content") for m in fake_openai.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["what do the notes say?", "and in the window?", "and headless again"]
