"""`whimbrel run` against the attacks on path rules: a scripted model, a real subprocess, real files.
Each run asserts what was NOT written (the secret unchanged, the marker absent)."""

from __future__ import annotations

import json
import os

import pytest

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.headless.helpers import events, model_flags, run_whimbrel

SECRET = "KEY=original\n"


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / ".env").write_text(SECRET)
    (folder / "notes.md").write_text("hello\n")
    return folder


def script(fake_openai, *items: tuple[str, dict]) -> None:
    fake_openai.queue(ToolCallReply([(name, json.dumps(args), f"c{i}") for i, (name, args) in enumerate(items, 1)]),
                      TextReply("done"))


def decisions(done) -> list[str]:
    [result] = events(done.stdout)
    return [call["decision"] for call in result["tool_calls"]]


def test_accept_edits_never_writes_env_past_a_path_deny_or_through_a_hard_link(fake_openai, workspace):
    os.link(workspace / ".env", workspace / "innocent.txt")
    script(fake_openai, ("write_file", {"path": ".env", "content": "PWNED=1\n"}),
           ("bash", {"command": "echo PWNED=1 > .env"}),
           ("write_file", {"path": "innocent.txt", "content": "PWNED=1\n"}),
           ("write_file", {"path": "fine.txt", "content": "ok\n"}))
    done = run_whimbrel(workspace, "--mode", "accept-edits", "--deny", "edit_file(**/.env)", "--allow", "bash(echo *)",
                        "--output", "json", *model_flags(fake_openai.base_url), "go")
    assert (workspace / ".env").read_text() == SECRET
    assert decisions(done) == ["refused", "refused", "refused", "allowed"]
    assert (workspace / "fine.txt").read_text() == "ok\n"


def test_accept_edits_does_not_override_a_secret(fake_openai, workspace):
    script(fake_openai, ("write_file", {"path": ".env", "content": "PWNED=1\n"}),
           ("write_file", {"path": "deploy/server.pem", "content": "x"}))
    done = run_whimbrel(workspace, "--mode", "accept-edits", "--output", "json", *model_flags(fake_openai.base_url),
                        "go")
    assert (workspace / ".env").read_text() == SECRET and not (workspace / "deploy").exists()
    assert decisions(done) == ["refused", "refused"] and "secret" in done.stderr


def test_plan_mode_refuses_redirections_under_reading_rules(fake_openai, workspace):
    script(fake_openai, ("bash", {"command": "ls > f"}), ("bash", {"command": "echo PWNED=1 > .env"}),
           ("bash", {"command": "ls"}))
    done = run_whimbrel(workspace, "--mode", "plan", "--allow", "bash(ls *)", "--allow", "bash(echo *)",
                        "--output", "json", *model_flags(fake_openai.base_url), "go")
    assert not (workspace / "f").exists() and (workspace / ".env").read_text() == SECRET
    assert decisions(done) == ["refused", "refused", "allowed"]


def test_auto_mode_never_takes_an_expanded_target_for_the_workspace(fake_openai, workspace, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    config = tmp_path / "config.toml"
    config.write_text('[policy]\nsandbox = "full"\n')  # no OS sandbox: the gate is the only thing in the way
    monkeypatch.setenv("WHIMBREL_CONFIG", str(config))
    script(fake_openai, ("bash", {"command": "echo x > $HOME/.bashrc"}), ("bash", {"command": "echo x > ~+/../up1"}),
           ("bash", {"command": "echo x > $PWD/../up2"}))
    done = run_whimbrel(workspace, "--mode", "auto", "--allow", "bash(echo *)",
                        "--output", "json", *model_flags(fake_openai.base_url), "go")
    assert not (home / ".bashrc").exists() and not (tmp_path / "up1").exists() and not (tmp_path / "up2").exists()
    assert decisions(done) == ["refused", "refused", "refused"]
