"""A headless refusal says what would let the call run, and following its advice literally does: a
redirection under a command rule needs an edit rule (or accept-edits), not a wider bash rule. And what a
run may not read stays out of what the model sees: search leaves denied and secret files out, a recursive
reader over a folder holding them is refused."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.headless.helpers import events, model_flags, run_whimbrel

TOKEN = "sk-live-SECRET-4242"


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "ws"
    (folder / "config" / "secrets").mkdir(parents=True)
    (folder / ".env").write_text(f"API_TOKEN={TOKEN}\n")
    (folder / "config" / "secrets" / "db.txt").write_text(f"password {TOKEN}\n")
    (folder / "notes.md").write_text("the TOKEN lives elsewhere\n")
    return folder


def script(fake_openai, *items: tuple[str, dict]) -> None:
    fake_openai.queue(ToolCallReply([(name, json.dumps(args), f"c{i}") for i, (name, args) in enumerate(items, 1)]),
                      TextReply("done"))


def approvals(done) -> list[dict]:
    return [e for e in events(done.stdout) if e.get("type") == "approval"]


def results(done) -> list[str]:
    return [e["output"] for e in events(done.stdout) if e.get("type") == "tool_result"]


def test_following_the_advice_for_a_redirection_writes_the_file(fake_openai, workspace):
    base = ["--allow", "bash(echo *)", "--output", "stream-json", *model_flags(fake_openai.base_url)]
    script(fake_openai, ("bash", {"command": "echo hi > out.txt"}))
    done = run_whimbrel(workspace, *base, "go")
    [refusal] = approvals(done)
    assert refusal["decision"] == "refused" and not (workspace / "out.txt").exists()
    advice = refusal["reason"].split("rerun with ", 1)[1]
    assert "--allow bash " not in advice and "--allow 'edit(out.txt)'" in advice and "--mode accept-edits" in advice
    flags, mode = re.fullmatch(r"(.*) \(writing a file is an edit\) or (--mode accept-edits)", advice).groups()
    for extra in (shlex.split(flags), shlex.split(mode)):  # each alternative, typed as the advice says
        (workspace / "out.txt").unlink(missing_ok=True)
        script(fake_openai, ("bash", {"command": "echo hi > out.txt"}))
        done = run_whimbrel(workspace, *base, *extra, "go")
        assert [a["decision"] for a in approvals(done)] == ["allowed"], done.stdout
        assert (workspace / "out.txt").read_text() == "hi\n"


def test_search_never_returns_denied_or_secret_content(fake_openai, workspace):
    script(fake_openai, ("search", {"pattern": "TOKEN|password", "path": "."}))
    done = run_whimbrel(workspace, "--deny", "read(**/secrets/**)", "--output", "stream-json",
                        *model_flags(fake_openai.base_url), "go")
    [output] = results(done)
    assert TOKEN not in output and TOKEN not in json.dumps(fake_openai.requests)
    assert output.startswith("notes.md:1:the TOKEN lives elsewhere")
    assert "2 files not searched" in output and "config/secrets/db.txt" in output and ".env" in output


@pytest.mark.parametrize("command", ["grep -r password .", "rg TOKEN", "tar cf - . ", "find . -type f -exec cat {} +"])
def test_a_recursive_reader_over_a_denied_file_is_refused(fake_openai, workspace, command):
    script(fake_openai, ("bash", {"command": command}), ("bash", {"command": "grep -r TOKEN notes.md"}))
    done = run_whimbrel(workspace, "--deny", "read(**/secrets/**)", "--allow", f"bash({command.split()[0]} *)",
                        "--allow", "bash(grep *)", "--output", "stream-json", *model_flags(fake_openai.base_url), "go")
    assert [a["decision"] for a in approvals(done)] == ["refused", "allowed"]
    assert TOKEN not in json.dumps(fake_openai.requests)
