"""`whimbrel run` decides through the permission engine and writes audit rows like the TUI: a --deny
rule's refusal and an allowed call both appear in `whimbrel audit --json`, each with who decided."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.headless.helpers import RUN_DEADLINE, events, model_flags, run_whimbrel
from tests.headless import test_run

workspace = test_run.workspace  # the fixture: a workspace with notes.md


def audit_json(workspace) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "app.cli", "audit", "--since", "1h", "--json"], cwd=workspace,
                          capture_output=True, text=True, timeout=RUN_DEADLINE, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_a_deny_rule_and_an_allowed_call_are_audited_with_who_decided(fake_openai, workspace):
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "git push --force origin main"}), "d1"),
                                     ("read_file", json.dumps({"path": "notes.md"}), "r1")]),
                      TextReply("ok"))
    done = run_whimbrel(workspace, "--deny", "bash(git push *)", "--output", "json",
                        *model_flags(fake_openai.base_url), "push it")
    assert done.returncode == 3
    [result] = events(done.stdout)
    rows = {row["call_id"]: row for row in audit_json(workspace)}
    assert rows["d1"]["decision"] == "refused" and rows["d1"]["status"] == "refused"
    assert rows["d1"]["decided_by"].startswith("rule deny bash(git push *) (cli, --deny bash(git push *))")
    assert rows["d1"]["workstream_id"] == result["workstream_id"] and rows["d1"]["mode"] == "ask"
    assert rows["r1"]["decision"] == "allowed" and rows["r1"]["status"] == "done"
    assert rows["r1"]["decided_by"] == "tool: read_file only reads"


def test_a_config_rule_and_project_policy_apply_to_a_headless_run(fake_openai, workspace, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[policy]\ndeny = ["bash(rm *)"]\n')
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "echo a && rm notes.md"}), "x1")]),
                      TextReply("ok"))
    done = run_whimbrel(workspace, "--mode", "auto", "--config", str(config), *model_flags(fake_openai.base_url),
                        "tidy")
    assert done.returncode == 3 and (workspace / "notes.md").exists()
    [row] = audit_json(workspace)
    assert row["decision"] == "refused" and "deny bash(rm *) (user, " in row["decided_by"]
