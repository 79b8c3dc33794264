"""`whimbrel policy check|list|review` and `whimbrel audit`, run as the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.permissions import audit
from app.permissions.project import policy_path
from app.storage.store import Store

CONFIG = '''[policy]
allow = ["bash(git status)", "bash(npm run test:*)"]
deny = ["bash(git push --force *)"]

[[policy.rules]]
rule = "bash(ls *)"
match = ["cat x"]
'''


def whimbrel(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def place(tmp_path):
    (tmp_path / "config.toml").write_text(CONFIG)
    (tmp_path / "ws").mkdir()
    return tmp_path


def flags(place: Path) -> list[str]:
    return ["--config", str(place / "config.toml"), "--data-dir", str(place / "data"), "--workdir", str(place / "ws")]


def test_check_prints_the_decision_and_what_decided(place):
    done = whimbrel("policy", "check", "bash(git push --force origin main)", *flags(place), cwd=place)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("deny: `git push --force origin main` is denied by deny bash(git push --force *)")
    assert "config.toml:3" in done.stdout and "risk: high" in done.stdout
    asked = whimbrel("policy", "check", "bash(git status && rm -rf build)", *flags(place), cwd=place)
    assert asked.stdout.startswith("ask:") and "rm -rf build" in asked.stdout
    assert "'Always' would offer: bash(rm -rf *)" in asked.stdout


def test_check_shows_how_a_bash_line_was_read(place):
    done = whimbrel("policy", "check", "bash(echo ${x:-$(rm -rf build)} > $HOME/out; git status > log)",
                    *flags(place), cwd=place)
    assert done.returncode == 0, done.stderr
    # the unknown target is asked about before any rule is consulted; each command's own reason is listed
    assert done.stdout.startswith("ask: asked about because the target of `>`: `$HOME/out` holds an expansion")
    assert "  runs: rm -rf build\n" in done.stdout
    assert "runs: echo ${x:-$(rm -rf build)}  (no allow rule can match:" in done.stdout
    assert f"writes: {(place / 'ws' / 'log').resolve()}" in done.stdout
    assert "unknown: the target of `>`: `$HOME/out` holds an expansion" in done.stdout


def test_list_prints_rules_scopes_and_broken_ones(place):
    done = whimbrel("policy", "list", *flags(place), cwd=place)
    assert done.returncode == 1  # a broken rule is a failure for scripts
    assert "allow     user        bash(git status)" in done.stdout
    assert "1 broken rule(s), not applied:" in done.stdout
    assert "config.toml:6: bash(ls *): its match example 'cat x' is not matched" in done.stdout


def test_a_project_file_applies_only_once_reviewed(place):
    ws = place / "ws"
    path = policy_path(ws)
    path.parent.mkdir()
    path.write_text('[[rules]]\nrule = "bash(make *)"\ndecision = "allow"\n')
    before = whimbrel("policy", "check", "bash(make test)", *flags(place), cwd=place)
    assert before.stdout.startswith("ask:") and "do not apply until you accept it" in before.stderr
    review = whimbrel("policy", "review", "--accept", *flags(place), cwd=place)
    assert "Accepted" in review.stdout, review.stderr
    after = whimbrel("policy", "check", "bash(make test)", *flags(place), cwd=place)
    assert after.stdout.startswith("allow:") and "(project, " in after.stdout
    path.write_text(path.read_text() + '\n[[rules]]\nrule = "bash(rm *)"\ndecision = "allow"\n')
    changed = whimbrel("policy", "check", "bash(make test)", *flags(place), cwd=place)
    assert changed.stdout.startswith("ask:"), "a changed file waits for a new review"


def test_audit_prints_json_lines_since(place, store_target):
    """On SQLite (the data dir's file) and on PostgreSQL (`--db-url`, tests/pg_fixtures.py)."""
    on_server = isinstance(store_target, str)
    store = Store(store_target if on_server else place / "data" / "whimbrel.db")
    db = ("--db-url", store_target) if on_server else ()
    now = time.time()
    for tool, age in (("bash", 60), ("write_file", 3 * 86400)):
        audit.append(store.engine, audit.AuditRow("w1", f"c-{tool}", tool, json.dumps(audit.redact_arguments({"api_key": "sk-abcdefghijkl"})),
                                                  "allowed", "rule allow bash(ls) (user, config.toml:2)", "ask",
                                                  "low: fine", "workspace-write, network off", "done", 12.0,
                                                  created_at=now - age))
    store.close()
    done = whimbrel("audit", "--since", "1d", "--json", *db, *flags(place), cwd=place)
    assert done.returncode == 0, done.stderr
    [line] = [json.loads(x) for x in done.stdout.splitlines()]
    assert line["tool"] == "bash" and line["decided_by"].startswith("rule allow")
    assert line["arguments"] == {"api_key": "[redacted]"}
    assert whimbrel("audit", "--since", "1w", "--json", *db, *flags(place), cwd=place).stdout.count("\n") == 2
    [written] = whimbrel("audit", "--since", "1w", "--tool", "write_*", "--json", *db, *flags(place),
                         cwd=place).stdout.splitlines()
    assert json.loads(written)["tool"] == "write_file"
    bad = whimbrel("audit", "--since", "yesterday", *db, *flags(place), cwd=place)
    assert bad.returncode == 2 and "--since takes a number and a unit" in bad.stderr


def test_redaction_of_arguments():
    redacted = audit.redact_arguments({"command": "curl -H 'Authorization: Bearer abc.def' https://x?token=s3cr3t",
                                       "password": "hunter2", "nested": [{"key": "ghp_" + "a" * 30}]})
    assert "abc.def" not in redacted["command"] and "s3cr3t" not in redacted["command"]
    assert redacted["password"] == "[redacted]" and "ghp_" not in json.dumps(redacted["nested"])


def test_retention_prunes_old_rows(store_target):
    store = Store(store_target)
    now = time.time()
    for age in (1, 100):
        audit.append(store.engine, audit.AuditRow("w", "c", "bash", "{}", "allowed", "mode", "ask", "low", "none",
                                                  "done", created_at=now - age * 86400))
    assert audit.prune(store.engine, 90, now) == 1 and len(audit.query(store.engine)) == 1
    store.close()
