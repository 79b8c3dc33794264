"""End-to-end acceptance: the installed `whimbrel` program in a real pseudo-terminal.

A user's whole path: type a request, approve a file write, get killed mid-answer (a crash),
and resume the conversation with nothing completed lost. Plus the CLI's answer to a bad
config file. Timeouts are generous: CI machines have two cores and Textual cold-starts slowly.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.e2e.installed import WHIMBREL, e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.stored import only_conversation
from tests.fake_llm.script import TextReply, ToolCallReply

PROMPT = "Please jot the plan into notes.txt"
NOTES = "step one: gather\nstep two: build\n"
SLOW_REPLY = "Streaming-summary begins here. " + "The notes file now holds the plan, step by step. " * 40

pytestmark = e2e_marks()


def whimbrel_argv(base_url: str, workdir: Path, data_dir: Path, *extra: str) -> list[str]:
    """The command line a user would type, with a fixed workspace and data directory."""
    return [WHIMBREL, "--base-url", base_url, "--model", "m", "--workdir", str(workdir),
            "--data-dir", str(data_dir), *extra]


def wait_until_ready(app: PtyApp) -> None:
    """Wait until a fresh store's workspace is restored: its tab, "new workstream", shows once boot
    has opened the store (the prompt and the status bar's model are on the first frame already).

    Keys typed sooner reach the prompt too (tests/e2e/test_keys_at_start.py), but a test that
    touches the store, opens the editor or answers a dialog first needs boot to be done.
    """
    app.wait_for("Ask for work", timeout=60)
    app.wait_for("◆ m ", timeout=60)
    app.wait_for("new workstream", timeout=60)


def test_approve_write_crash_and_resume(fake_openai, tmp_path: Path) -> None:
    """Approve a write, SIGKILL mid-stream, then resume: every completed message survives."""
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(
        ToolCallReply(calls=[("write_file", json.dumps({"path": "notes.txt", "content": NOTES}))]),
        TextReply(SLOW_REPLY, delay=0.05, chunk_size=2),  # ~40 s in total: still streaming when killed
    )
    notes = workdir / "notes.txt"

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir)) as app:
        app.wait_for("Quit", timeout=60)  # first frame painted
        wait_until_ready(app)
        app.send(PROMPT)
        app.wait_for(PROMPT, timeout=20)
        app.send("\r")
        app.wait_for("Approve tool call", timeout=60)
        assert not notes.exists(), "the write must wait for approval"
        app.send("y")
        app.wait_until(lambda: notes.exists() and notes.read_text() == NOTES, timeout=30,
                       what="notes.txt written with the approved content")
        app.wait_for("Streaming-summary", timeout=60)
        assert app.process.poll() is None
        assert fake_openai.completed == 1, "the slow reply must still be streaming when we crash"
        app.kill()

    workstream_id, messages = only_conversation(data_dir / "whimbrel.db")
    users = [m for m in messages if m.role == "user"]
    calls = [m for m in messages if m.role == "assistant" and m.tool_calls]
    results = [m for m in messages if m.role == "tool"]
    assert [m.content for m in users] == [PROMPT]
    assert len(calls) == 1 and [c.name for c in calls[0].tool_calls] == ["write_file"]
    assert json.loads(calls[0].tool_calls[0].arguments) == {"path": "notes.txt", "content": NOTES}
    assert len(results) == 1 and results[0].tool_call_id == calls[0].tool_calls[0].id
    assert not results[0].is_error
    order = [messages.index(m) for m in (users[0], calls[0], results[0])]
    assert order == sorted(order)

    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir, "--resume", workstream_id[:8])) as app:
        app.wait_for(PROMPT, timeout=60)
        app.wait_for("write_file", timeout=10)
        app.send("\x11")  # Ctrl+Q
        assert app.wait_exit(timeout=15) == 0


def test_unknown_config_key_is_reported_with_file_line_and_key(tmp_path: Path) -> None:
    """A typo in config.toml stops the program with exit code 2 and says where it is."""
    config = tmp_path / "BAD.toml"
    config.write_text('[tools]\nbash_timeout = 30\nbash_timeuot = 5\n', encoding="utf-8")
    result = subprocess.run([WHIMBREL, "--config", str(config), "--workdir", str(tmp_path)],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert str(config) in result.stderr
    assert "line 3" in result.stderr
    assert "bash_timeuot" in result.stderr
    assert result.stdout == ""
