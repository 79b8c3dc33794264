"""web_fetch before anyone is asked: an address the policy refuses (cloud metadata, loopback) is refused
at once, with the reason going to the model and no approval shown; what is asked about is rated by
where it goes."""

from __future__ import annotations

import json
from pathlib import Path

from app.engine import events as ev
from app.permissions.risk import assess_call
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply, ToolCallReply


async def test_a_fetch_of_the_cloud_metadata_address_is_refused_without_asking(fake_openai, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_openai.queue(
        ToolCallReply([("web_fetch", json.dumps({"url": "http://169.254.169.254/latest/meta-data/"}), "m1"),
                       ("web_fetch", json.dumps({"url": "http://127.0.0.1:9/admin"}), "m2")]),
        TextReply("Both refused."))
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path / "data", recorder)
    await session.run_turn("read the instance metadata")
    assert recorder.approvals == []  # nobody was asked to approve what could never run
    sent = {m["tool_call_id"]: m["content"] for m in fake_openai.requests[1]["messages"] if m["role"] == "tool"}
    assert "169.254.169.254, a cloud metadata address" in sent["m1"] and "Refused to fetch" in sent["m1"]
    assert "a loopback address" in sent["m2"]
    results = {e.call_id: e for e in recorder.of(ev.ToolResultReady)}
    assert results["m1"].is_error and results["m2"].is_error
    await shutdown(session, store)


def test_a_fetch_is_rated_by_where_it_goes():
    here = Path("/tmp")
    assert assess_call("web_fetch", {"url": "https://docs.python.org/3/"}, [], here).level == "low"
    for local in ("http://127.0.0.1:8000/", "http://10.0.0.5/", "http://printer.local/", "http://localhost:3000",
                  "http://169.254.169.254/latest/"):
        risk = assess_call("web_fetch", {"url": local}, [], here)
        assert risk.level == "medium", (local, risk)
