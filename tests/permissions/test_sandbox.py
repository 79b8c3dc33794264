"""Commands in the real bubblewrap sandbox: no writes outside the workspace, no ~/.ssh, no network
unless allowed (a server on 127.0.0.1 is the peer)."""

from __future__ import annotations

import asyncio
import socket
import threading
import uuid
from pathlib import Path

import pytest

from app.sandbox.bwrap import SandboxSpec, available, blocked_by_sandbox, unavailable_reason, wrap
from tools.bash import bash
from tools.context import ToolContext
from tools.errors import ToolError

pytestmark = pytest.mark.skipif(available() is None, reason=f"no sandbox here: {unavailable_reason()}")


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    monkeypatch.setenv("HOME", str(home))
    return home


async def run(command: str, workspace: Path, spec: SandboxSpec) -> tuple[str, bool]:
    ctx = ToolContext(workspace=workspace, bash_timeout=30, wrap_command=lambda argv: wrap(argv, spec))
    try:
        return await bash({"command": command}, ctx), False
    except ToolError as error:
        return str(error), True


def spec_for(workspace: Path, home: Path, level="workspace-write", network=False) -> SandboxSpec:
    return SandboxSpec(level, workspace, network, home=home)


async def test_writes_stay_in_the_workspace(tmp_path, home):
    """/var/tmp stands for "anywhere outside": writable here, read-only in the sandbox (the sandbox's
    /tmp is a private one, so a path under the host's /tmp would not even exist inside)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = Path("/var/tmp") / f"whimbrel-sandbox-{uuid.uuid4().hex}"
    try:
        output, failed = await run(f"touch inside.txt && touch {outside}", ws, spec_for(ws, home))
        assert (ws / "inside.txt").exists() and not outside.exists()
        assert failed and "Read-only file system" in output and blocked_by_sandbox(output, spec_for(ws, home))
    finally:
        outside.unlink(missing_ok=True)


async def test_a_private_tmp(tmp_path, home):
    ws = tmp_path / "ws"
    ws.mkdir()
    output, failed = await run("echo hi > /tmp/scratch && cat /tmp/scratch", ws, spec_for(ws, home))
    assert not failed and "hi" in output and not Path("/tmp/scratch").exists()


async def test_a_path_under_the_hosts_tmp_is_missing_inside_and_that_is_named(tmp_path, home):
    """The sandbox's /tmp is its own, so the host's /tmp/... is "No such file or directory" inside;
    the failure is put down to the sandbox (and a plain typo in the workspace is not)."""
    ws = tmp_path / "ws"  # tmp_path lies under the host's /tmp
    ws.mkdir()
    target = tmp_path / "elsewhere" / "x.txt"
    target.parent.mkdir()
    output, failed = await run(f"touch {target}", ws, spec_for(ws, home))
    assert failed and not target.exists()
    blocked = blocked_by_sandbox(output, spec_for(ws, home))
    assert blocked and "its own private /tmp" in blocked and str(target) in blocked
    output, failed = await run("cat missing.txt", ws, spec_for(ws, home))
    assert failed and blocked_by_sandbox(output, spec_for(ws, home)) is None
    output, failed = await run(f"cat {home}/.ssh/config", ws, spec_for(ws, home))
    assert failed and "is hidden inside the sandbox" in (blocked_by_sandbox(output, spec_for(ws, home)) or "")


async def test_read_only_level_writes_nothing(tmp_path, home):
    ws = tmp_path / "ws"
    ws.mkdir()
    _output, failed = await run("touch inside.txt", ws, spec_for(ws, home, "read-only"))
    assert failed and not (ws / "inside.txt").exists()


async def test_ssh_keys_are_hidden(tmp_path, home):
    ws = tmp_path / "ws"
    ws.mkdir()
    output, _failed = await run(f"cat {home}/.ssh/id_ed25519; ls -a {home}/.ssh", ws, spec_for(ws, home))
    assert "PRIVATE KEY" not in output and output.split("\n")[1:3] == [".", ".."]


class _Server:
    """A TCP server on 127.0.0.1 that answers each connection with 'pong' and counts them (`reached`)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.reached = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.reached += 1
            conn.sendall(b"pong\n")
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def server():
    peer = _Server()
    yield peer
    peer.close()


PROBE = "python3 -c \"import socket; s=socket.create_connection(('127.0.0.1', {port}), 5); print(s.recv(10).decode())\""


async def test_network_off_cannot_reach_a_local_server(tmp_path, home, server):
    ws = tmp_path / "ws"
    ws.mkdir()
    spec = spec_for(ws, home)
    output, failed = await run(PROBE.format(port=server.port), ws, spec)
    assert failed and "pong" not in output and blocked_by_sandbox(output, spec)


async def test_network_on_reaches_it(tmp_path, home, server):
    ws = tmp_path / "ws"
    ws.mkdir()
    output, failed = await run(PROBE.format(port=server.port), ws, spec_for(ws, home, network=True))
    assert not failed and "pong" in output


async def test_full_level_is_not_wrapped(tmp_path, home):
    assert wrap(["true"], spec_for(tmp_path, home, "full")).argv == ["true"]


async def test_readable_places_under_tmp_survive_the_private_tmp(tmp_path, home):
    """A Python (a venv, a checkout) under /tmp is bound back read-only after the private /tmp, so a
    sandboxed interpreter can start there; it stays read-only, and other files in /tmp stay hidden."""
    ws = tmp_path / "ws"
    ws.mkdir()
    interpreter = tmp_path / "venv"
    interpreter.mkdir()
    (interpreter / "marker").write_text("here")
    (tmp_path / "secret").write_text("no")
    spec = SandboxSpec("workspace-write", ws, home=home, readable=[interpreter])
    output, failed = await run(f"cat {interpreter}/marker", ws, spec)
    assert not failed and output.startswith("here\n")
    output, failed = await run(f"touch {interpreter}/new", ws, spec)
    assert failed and "Read-only file system" in output and not (interpreter / "new").exists()
    output, failed = await run(f"cat {tmp_path}/secret", ws, spec)
    assert failed and "No such file" in output
    output, failed = await run(f"cat {interpreter}/marker", ws, spec_for(ws, home))
    assert failed and "No such file" in output
