"""The reader's attacks end to end: a scripted model asks `whimbrel run` (a real subprocess, the real
openai SDK against the fake server) to run each one under allow rules for the harmless part; the
marker file the hidden command would create must not exist afterwards."""

from __future__ import annotations

import json

import pytest

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.headless.helpers import events, model_flags, run_whimbrel

ATTACKS = [
    "echo ${x:-$(touch marker)}",
    "echo ${a[$(touch marker)]}",
    "echo $(( $(touch marker) ))",
    "echo $'\\'' ; touch marker #'",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch marker' git status",
]


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("command", ATTACKS)
def test_a_hidden_command_does_not_run_under_allow_rules(fake_openai, workspace, command):
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": command}), "b1")]), TextReply("done"))
    done = run_whimbrel(workspace, "--allow", "bash(echo *)", "--allow", "bash(git status)", "--deny", "bash(rm *)",
                        "--output", "json", *model_flags(fake_openai.base_url), "go")
    [result] = events(done.stdout)
    assert [c["decision"] for c in result["tool_calls"]] == ["refused"], done.stdout
    assert not (workspace / "marker").exists()


def test_a_deny_rule_sees_a_command_inside_an_expansion(fake_openai, workspace):
    (workspace / "keep").write_text("x")
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "echo ${x:-$(rm keep)}"}), "b1")]),
                      TextReply("done"))
    done = run_whimbrel(workspace, "--mode", "auto", "--deny", "bash(rm *)", "--output", "json",
                        *model_flags(fake_openai.base_url), "go")
    [result] = events(done.stdout)
    [call] = result["tool_calls"]
    assert call["decision"] == "refused" and (workspace / "keep").exists()
    assert "rm keep" in json.dumps(result)


def test_the_hanging_line_is_decided_and_runs(fake_openai, workspace):
    """`&>` once hung the reader (and `whimbrel run` with it); now the call is decided and runs."""
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "echo hi &>out.txt"}), "b1")]), TextReply("ok"))
    done = run_whimbrel(workspace, "--allow", "bash(echo *)", "--allow", "edit(out.txt)", "--output", "json", *model_flags(fake_openai.base_url),
                        "go")
    [result] = events(done.stdout)
    assert [c["decision"] for c in result["tool_calls"]] == ["allowed"], done.stderr
    assert (workspace / "out.txt").read_text() == "hi\n"
