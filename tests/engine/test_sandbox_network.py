"""The sandbox's network, per workstream (/network, kept with it) and per rule (`network = true`):
a real bubblewrap sandbox, a real session and a TCP server on 127.0.0.1 as the peer."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from app.engine import events as ev
from app.sandbox.bwrap import available
from tests.engine import test_permission_flow as flow
from tests.engine.harness import Recorder
from tests.engine.test_permission_flow import App, audit_rows, bash_call, tool_results
from tests.fake_llm.script import TextReply
from tests.permissions import test_sandbox

pytestmark = pytest.mark.skipif(available() is None, reason="no bubblewrap sandbox here")
place = flow.place  # fixture: a git workspace, a config with a hook, a data dir
server = test_sandbox.server  # fixture: a TCP server on 127.0.0.1 that answers 'pong'
PROBE = test_sandbox.PROBE.replace("python3", "python3 -S")


@pytest.fixture
def home(monkeypatch):
    """A home outside /tmp (the sandbox's /tmp is private)."""
    path = Path("/var/tmp") / f"whimbrel-home-{uuid.uuid4().hex}"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def deny_outside(item: ev.ApprovalItem) -> ev.ApprovalDecision:
    """Approve the command, refuse to rerun it outside the sandbox."""
    return ev.ApprovalDecision("deny" if "outside the sandbox" in item.reason else "approve")


@pytest.mark.parametrize("network", [False, True])
async def test_the_workstreams_network_switch(fake_openai, place, server, home, network):
    ws, config, data = place
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(bash_call(PROBE.format(port=server.port), "n1"), TextReply("ok"))
    session = await app.start(Recorder(deny_outside), saved={"policy_network": network})
    await session.run_turn("ping the local server")
    [result] = tool_results(fake_openai)
    await app.stop()
    [row] = audit_rows(data)
    if network:
        assert "pong" in result and row.sandbox == "workspace-write, network on"
    else:
        assert "pong" not in result and "the user did not let it run outside" in result
        assert row.sandbox == "workspace-write, network off"


async def test_a_rule_with_network_grants_it_to_what_it_allows(fake_openai, place, server, home, tmp_path):
    ws, _config, data = place
    config = tmp_path / "net.toml"
    config.write_text('[[policy.rules]]\nrule = "bash(python3 -S -c *)"\ndecision = "allow"\nnetwork = true\n')
    app = App(fake_openai, ws, config, data)
    other = PROBE.format(port=server.port).replace("python3 -S -c", "python3 -c")
    fake_openai.queue(bash_call(PROBE.format(port=server.port), "r1"), bash_call(other, "r2"), TextReply("ok"))
    recorder = Recorder(deny_outside)
    session = await app.start(recorder)
    await session.run_turn("ping it twice")
    by_rule, approved = tool_results(fake_openai)
    assert "pong" in by_rule and "pong" not in approved
    assert [item.call_id for request in recorder.approvals for item in request.items][0] == "r2"
    await app.stop()
    rows = {r.call_id: r for r in audit_rows(data)}
    assert rows["r1"].sandbox == "workspace-write, network on" and rows["r1"].decision == "allowed"
    assert rows["r2"].sandbox == "workspace-write, network off"

