"""SIGTERM and SIGHUP quit like Ctrl+Q: terminal restored, children ended, what is pending saved.

The installed `whimbrel` runs in a real pty with a real MCP stdio server (`mcp-server-time`) and a
running bash command (`sleep`). Both children run in sessions of their own, so a signal sent to the
app never reaches them: only the app's own shutdown can end them. A stubborn server (ignores
SIGTERM, keeps running after its stdin closes) must not make a normal quit print a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.e2e.installed import e2e_marks, places
from tests.e2e.processes import alive, descendants, kill_survivors
from tests.e2e.pty_app import PtyApp, strip_ansi
from tests.e2e.stored import only_conversation
from tests.e2e.test_acceptance import wait_until_ready, whimbrel_argv
from tests.fake_llm.script import ToolCallReply

VENV_BIN = Path(sys.executable).parent
STUBBORN = Path(__file__).with_name("stubborn_mcp_server.py")
# What Textual writes to give the terminal back: leave the alternate screen, show the cursor, stop
# reporting the mouse (each mode it turned on).
RESTORE = {"leave the alternate screen": "\x1b[?1049l", "show the cursor": "\x1b[?25h",
           "stop mouse button reports": "\x1b[?1000l", "stop mouse motion reports": "\x1b[?1003l",
           "stop SGR mouse reports": "\x1b[?1006l"}

pytestmark = e2e_marks(240)


def write_config(tmp_path: Path, servers: dict[str, list[str]]) -> Path:
    """A config.toml with one stdio MCP server per entry (name -> command line)."""
    lines = []
    for name, (command, *args) in servers.items():
        lines += [f"[mcp.servers.{name}]", f"command = {json.dumps(command)}", f"args = {json.dumps(args)}"]
    config = tmp_path / "config.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


@pytest.fixture
def children() -> list[int]:
    """Pids of the app's children seen by the test; any still running at the end are killed."""
    pids: list[int] = []
    yield pids
    kill_survivors(pids)


def children_running(app: PtyApp, seen: list[int], *needles: str) -> dict[str, int]:
    """Wait until a descendant of the app runs each of `needles`; their pids by needle (added to `seen`)."""
    found: dict[str, int] = {}

    def look() -> bool:
        for pid, command in descendants(app.process.pid).items():
            for needle in needles:
                if needle in command and needle not in found:
                    found[needle] = pid
                    seen.append(pid)
        return len(found) == len(needles)

    app.wait_until(look, timeout=90, what=f"child processes running {needles}")
    return found


def assert_terminal_restored(output: str) -> None:
    missing = [what for what, sequence in RESTORE.items() if sequence not in output]
    assert not missing, f"the terminal was not restored at exit: nothing to {', '.join(missing)}"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_quit_signal_restores_the_terminal_and_ends_every_child(fake_openai, tmp_path: Path, children,
                                                                signum) -> None:
    workdir, data_dir = places(tmp_path)
    config = write_config(tmp_path, {"time": [str(VENV_BIN / "mcp-server-time"), "--local-timezone", "UTC"]})
    fake_openai.queue(ToolCallReply(calls=[("bash", json.dumps({"command": "sleep 917"}))]))

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, "--config", str(config))) as app:
        wait_until_ready(app)
        app.send("Wait a while, please")
        app.wait_for("Wait a while", timeout=20)
        app.send("\r")
        app.wait_for("Approve tool call", timeout=60)
        app.send("y")
        running = children_running(app, children, "mcp-server-time", "sleep 917")
        since = len(app.output)
        os.kill(app.process.pid, signum)
        status = app.wait_exit(timeout=60)
        assert status == 128 + signum, f"exit status {status}"
        assert_terminal_restored(app.output[since:])
        app.wait_until(lambda: not any(alive(pid) for pid in running.values()), timeout=10,
                       what="the MCP server and the bash command ended with the app")
        assert "Traceback" not in app.output[since:]

    _, messages = only_conversation(data_dir / "whimbrel.db")
    (call,) = [c for m in messages for c in m.tool_calls]
    results = [m for m in messages if m.role == "tool" and m.tool_call_id == call.id]
    assert len(results) == 1 and results[0].is_error, "the killed command's result was not saved"


def test_quit_with_a_server_that_will_not_stop_prints_no_traceback(fake_openai, tmp_path: Path,
                                                                   children) -> None:
    workdir, data_dir = places(tmp_path)
    config = write_config(tmp_path, {"stubborn": [sys.executable, str(STUBBORN)]})

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, "--config", str(config))) as app:
        wait_until_ready(app)
        server = children_running(app, children, STUBBORN.name)[STUBBORN.name]
        since = len(app.output)
        app.send("\x11")  # Ctrl+Q
        assert app.wait_exit(timeout=60) == 0
        after_quit = app.output[since:]
        assert "Traceback" not in after_quit, strip_ansi(after_quit)[-3000:]
        assert_terminal_restored(after_quit)
        printed_after = strip_ansi(after_quit.split("\x1b[?1049l")[-1])  # what the shell shows afterwards
        assert printed_after.strip() == "", printed_after  # nothing said: no traceback, and no resume
        # hint for a workstream without messages
        app.wait_until(lambda: not alive(server), timeout=10, what="the stubborn server killed")
