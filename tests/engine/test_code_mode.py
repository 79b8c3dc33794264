"""Code mode through a real Session: the real fake-server SDK round trip, real tools, real SQLite, the
real sandbox; each program's tool calls go through the same gate, approvals and audit as native ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.engine import events as ev
from app.engine.tool_setup import configure_tools
from app.settings.config import load_config
from tests.engine.harness import Recorder
from tests.engine.test_permission_flow import App, audit_rows
from tests.fake_llm.script import TextReply, ToolCallReply

READ_30 = """
hits = []
for i in range(30):
    text = await tools.read_file(path=f"mod_{i:02d}.py")
    if "import sqlalchemy" in text:
        hits.append(f"mod_{i:02d}.py")
print("modules importing sqlalchemy:", ", ".join(hits))
"""


LIBC = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"  # straight to the kernel
NEEDS_BWRAP = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the OS sandbox (bubblewrap) is not here")


def run_code(code: str, call_id: str = "rc1", **extra) -> ToolCallReply:
    return ToolCallReply([("run_code", json.dumps({"code": code, **extra}), call_id)])


@pytest.fixture
def code_place(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    config = tmp_path / "config.toml"
    config.write_text('[tools]\nmode = "code"\n')
    return ws, config, tmp_path / "data"


async def start(server, place, recorder: Recorder, saved: dict | None = None):
    ws, config, data = place
    app = App(server, ws, config, data)
    session = await app.start(recorder, saved=saved)
    configure_tools(session, load_config(config), saved)
    return app, session


def tool_message(server, index: int = -1) -> dict:
    return [m for m in server.requests[index]["messages"] if m["role"] == "tool"][-1]


async def test_thirty_reads_come_back_as_one_line(fake_openai, code_place):
    ws = code_place[0]
    for i in range(30):
        body = ("import sqlalchemy\n" if i in (3, 17) else "import os\n") + "x = 1\n" * 200
        (ws / f"mod_{i:02d}.py").write_text(body)
    fake_openai.queue(run_code(READ_30), TextReply("mod_03 and mod_17."))
    recorder = Recorder()
    app, session = await start(fake_openai, code_place, recorder)
    await session.run_turn("which modules import sqlalchemy?")
    await app.stop()
    first = fake_openai.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["run_code"]
    system = first["messages"][0]["content"]
    assert "async def read_file(self, *, path: str" in system and "tools: Tools" in system
    result = tool_message(fake_openai)
    assert result["content"] == "modules importing sqlalchemy: mod_03.py, mod_17.py"
    nested = [e.event for e in recorder.of(ev.CodeCallEvent) if isinstance(e.event, ev.ToolCallAdded)]
    assert len(nested) == 30 and {e.name for e in nested} == {"read_file"}
    rows = [r for r in audit_rows(code_place[2]) if r.call_id.startswith("rc1:code:")]
    assert len(rows) == 30 and {r.status for r in rows} == {"done"}


async def test_a_tool_the_policy_denies_raises_inside_the_program(fake_openai, code_place):
    program = ("try:\n    await tools.write_file(path='x.txt', content='hi')\n"
               "except ToolCallError as error:\n    print('refused:', error)\n")
    fake_openai.queue(run_code(program), TextReply("It was refused."))
    recorder = Recorder()
    app, session = await start(fake_openai, code_place, recorder)
    session.guard.gate.mode = "plan"
    await session.run_turn("write x.txt")
    await app.stop()
    text = tool_message(fake_openai)["content"]
    assert text.startswith("refused: Whimbrel's permission policy refused this call") and "plan mode" in text
    assert not (code_place[0] / "x.txt").exists()
    [row] = [r for r in audit_rows(code_place[2]) if r.call_id == "rc1:code:1"]
    assert row.tool == "write_file" and row.decision == "refused"


async def test_an_approval_from_code_is_marked_and_a_denial_raises(fake_openai, code_place):
    program = "await tools.bash(command='echo hi > out.txt')\n"
    fake_openai.queue(run_code(program), TextReply("Denied."))
    recorder = Recorder(lambda item: ev.ApprovalDecision("deny", feedback="not now"))
    app, session = await start(fake_openai, code_place, recorder)
    await session.run_turn("run it")
    await app.stop()
    [asked] = recorder.approvals
    assert asked.items[0].name == "from code · bash" and asked.items[0].reason.startswith("a run_code program asks")
    result = tool_message(fake_openai)
    assert "ToolCallError: The user denied this tool call. Their feedback: not now" in result["content"]
    assert not (code_place[0] / "out.txt").exists()


async def test_hidden_and_native_only_tools_are_refused(fake_openai, code_place):
    program = ("for name in ('no_such_tool', 'run_code'):\n"
               "    try:\n        await getattr(tools, name)()\n"
               "    except ToolCallError as error:\n        print(name, '->', error)\n"
               "await tools._channel.call('run_code', {'code': '1'})\n")
    fake_openai.queue(run_code(program), ToolCallReply([("read_file", json.dumps({"path": "a"}), "native1")]),
                      TextReply("ok"))
    recorder = Recorder()
    app, session = await start(fake_openai, code_place, recorder)
    await session.run_turn("try")
    await app.stop()
    messages = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    first, second = messages[0]["content"], messages[1]["content"]
    assert "no_such_tool -> there is no tool tools.no_such_tool" in first
    assert "run_code -> there is no tool tools.run_code" in first
    assert "ToolCallError: run_code cannot be called from a program" in first
    assert second.startswith("Unknown tool 'read_file'")  # code mode offers no native calls


@pytest.mark.parametrize("program, expected", [
    ("while True:\n    pass\n", "stopped after 2 s (the time limit)"),
    ("import os\nwhile True:\n    os.fork()\n", "PermissionError: [Errno 1] Operation not permitted"),
    ("data = bytearray(1 << 30)\n", "MemoryError"),
    ("import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=2)\n", "Connection refused"),  # its own lo
    ("open('/etc/whimbrel-code-mode-test', 'w').write('x')\n", "Read-only file system"),
    (LIBC + "pid = libc.fork()\nif pid == 0:\n    import os; os._exit(0)\nprint('fork', pid, ctypes.get_errno())\n",
     "fork -1 1"),  # seccomp (RLIMIT_NPROC does not bind root)
    pytest.param(LIBC + "import struct\nfd = libc.socket(2, 1, 0)\n"
                 "address = struct.pack('=H', 2) + struct.pack('!H4s8x', 9, bytes([127, 0, 0, 1]))\n"
                 "print('connect', libc.connect(fd, address, 16))\n", "connect -1", marks=NEEDS_BWRAP),
    pytest.param(LIBC + "print('open', libc.open(b'/etc/whimbrel-code-mode-test', 0o101, 0o644))\n", "open -1",
                 marks=NEEDS_BWRAP),
], ids=["infinite-loop", "fork-bomb", "1GB", "network", "write-outside", "fork-via-libc", "network-via-libc",
        "write-outside-via-libc"])
async def test_a_hostile_program_is_stopped_and_whimbrel_goes_on(fake_openai, code_place, program, expected):
    fake_openai.queue(run_code(program, timeout=2), TextReply("It failed."))
    recorder = Recorder()
    app, session = await start(fake_openai, code_place, recorder)
    await session.run_turn("go")
    await app.stop()
    result = tool_message(fake_openai)
    assert expected in result["content"]
    assert [e.outcome for e in recorder.of(ev.TurnFinished)] == ["done"]
    assert not Path("/etc/whimbrel-code-mode-test").exists()


async def test_the_mode_follows_the_workstream_then_the_model_then_the_config(fake_openai, code_place):
    recorder = Recorder()
    app, session = await start(fake_openai, code_place, recorder, saved={"tool_mode": "both"})
    assert session.tool_modes.current() == "both"
    assert await session.tool_modes.set("native") == "native"
    assert (await app.store.get_config(session.workstream_id))["tool_mode"] == "native"
    assert await session.tool_modes.set("default") == "code"
    with pytest.raises(ValueError, match="unknown tool mode"):
        await session.tool_modes.set("fast")
    await app.stop()
    assert [e.mode for e in recorder.of(ev.ToolModeChanged)] == ["native", "code"]


@pytest.mark.parametrize("mode, offers_code", [("both", True), ("native", False)])
async def test_both_mode_sends_native_tools_and_run_code_native_mode_neither(fake_openai, code_place, mode,
                                                                             offers_code):
    fake_openai.queue(TextReply("hi"))
    app, session = await start(fake_openai, code_place, Recorder(), saved={"tool_mode": mode})
    await session.run_turn("hello")
    await app.stop()
    names = [t["function"]["name"] for t in fake_openai.requests[0]["tools"]]
    assert ("run_code" in names) is offers_code and "read_file" in names
    system = fake_openai.requests[0]["messages"][0]["content"]
    assert "## Tools as Python" in system if offers_code else "Tools as Python" not in system


async def test_a_program_on_an_event_loop_and_one_without(fake_openai, code_place):
    """A program that awaits only tool calls runs without asyncio (a faster start); one that awaits
    anything else (gather, sleep, its own coroutines) runs on a loop; both get the same results."""
    (code_place[0] / "a.txt").write_text("alpha\n")
    plain = "print((await tools.read_file(path='a.txt')).split()[-1])\n"
    on_a_loop = ("import asyncio\nasync def both():\n    await asyncio.sleep(0)\n"
                 "    return await asyncio.gather(tools.read_file(path='a.txt'), tools.read_file(path='a.txt'))\n"
                 "print([text.split()[-1] for text in await both()])\n")
    fake_openai.queue(run_code(plain), TextReply("one"), run_code(on_a_loop, "rc2"), TextReply("two"))
    app, session = await start(fake_openai, code_place, Recorder())
    await session.run_turn("first")
    first = tool_message(fake_openai, 1)["content"]
    await session.run_turn("second")
    await app.stop()
    assert first == "alpha"
    assert tool_message(fake_openai)["content"] == "['alpha', 'alpha']"
