"""A team's rules in the store, reviewed once per instance, on a real SQLite file and a real PostgreSQL.

Instance A writes the rules; instance B (its own data dir, the same store) does not apply them until its
user accepted that very text; once accepted they decide calls (the gate's outcome is asserted); a change
by A makes them unreviewed in B again. A team's allow never widens a local deny. The command line
(`whimbrel policy team set|show`, `policy review --accept`, `policy check`) is run as a process on a real
PostgreSQL with two data dirs, as two machines of a team would.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.permissions import team_policy
from app.permissions.call_view import CallView
from app.permissions.gate import Gate
from app.permissions.loader import load
from app.permissions.project import accept_files
from app.storage import identity
from app.storage.store import Store
from tests.pg_fixtures import stored_rows

TEAM = 'deny = ["bash(git push *)"]\nallow = ["bash(make deploy)"]\n'
CHANGED = 'deny = ["bash(git push *)"]\nallow = ["bash(make deploy)", "bash(make release)"]\n'
NO_RULES = SimpleNamespace(policy_rules={}, hooks={}, path=None)


@pytest.fixture
def store(store_target):
    made = Store(store_target)
    yield made
    made.close()


def outcome(loaded, command: str, workspace: Path) -> str:
    gate = Gate(loaded.policy, "ask", protected=[])
    return gate.decide(CallView("bash", {"command": command}, primary="command")).outcome


def test_team_rules_apply_in_an_instance_only_once_reviewed_there(store, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    identity.set_name("alice@laptop")
    try:
        assert team_policy.store_text(store.engine, TEAM) == []
    finally:
        identity.set_name(None)
    assert stored_rows(store, "SELECT who FROM team_policy") == [("alice@laptop",)]

    waiting = load(NO_RULES, ws, store.engine, data_dir=b_dir)
    assert waiting.team.state == "unreviewed"
    assert [r for r in waiting.policy.rules if r.scope == "team"] == []
    assert outcome(waiting, "make deploy", ws) == "ask" and outcome(waiting, "git push origin main", ws) == "ask"
    assert any(n.startswith("The team's policy in the store (set by alice@laptop) is new or changed: its rules do "
                            "not apply here") for n in waiting.notices)

    assert [f.kind for f in accept_files(store.engine, waiting.project_files)] == ["team"]
    accepted = load(NO_RULES, ws, store.engine, data_dir=b_dir)
    assert accepted.team.state == "accepted" and not any("team's policy" in n for n in accepted.notices)
    assert outcome(accepted, "make deploy", ws) == "allow"
    assert outcome(accepted, "git push origin main", ws) == "deny"
    assert outcome(accepted, "make release", ws) == "ask"
    mode = stat.S_IMODE(os.stat(b_dir / "team-policy.accepted").st_mode)
    assert mode == 0o600, "the acceptance is a private file of B's data dir"

    # A's instance (its own data dir) has reviewed nothing: B's review is B's alone
    assert load(NO_RULES, ws, store.engine, data_dir=a_dir).team.state == "unreviewed"
    assert not (a_dir / "team-policy.accepted").exists()

    team_policy.store_text(store.engine, CHANGED)  # A changes the rules
    changed = load(NO_RULES, ws, store.engine, data_dir=b_dir)
    assert changed.team.state == "unreviewed"
    assert outcome(changed, "make deploy", ws) == "ask" and outcome(changed, "make release", ws) == "ask"


def test_what_is_accepted_is_the_text_that_was_shown(store, tmp_path):
    """B reviews the rules as read; A changes them before B accepts: the change is still unreviewed."""
    ws, b_dir = tmp_path / "ws", tmp_path / "b"
    ws.mkdir()
    team_policy.store_text(store.engine, TEAM)
    shown = load(NO_RULES, ws, store.engine, data_dir=b_dir)
    team_policy.store_text(store.engine, CHANGED)
    accept_files(store.engine, shown.project_files)
    now = load(NO_RULES, ws, store.engine, data_dir=b_dir)
    assert now.team.state == "unreviewed" and outcome(now, "make release", ws) == "ask"


def test_a_team_allow_never_widens_a_local_deny(store, tmp_path):
    ws, b_dir = tmp_path / "ws", tmp_path / "b"
    ws.mkdir()
    local = SimpleNamespace(policy_rules={"deny": ["bash(make deploy)"]}, hooks={}, path=None)
    team_policy.store_text(store.engine, 'allow = ["bash(make deploy)", "bash(git push *)"]\n')
    accept_files(store.engine, load(local, ws, store.engine, data_dir=b_dir).project_files)
    loaded = load(local, ws, store.engine, data_dir=b_dir)
    assert loaded.team.state == "accepted"
    assert outcome(loaded, "make deploy", ws) == "deny"
    assert outcome(loaded, "git push origin main", ws) == "allow"


def test_no_data_dir_never_accepts(store, tmp_path):
    team_policy.store_text(store.engine, TEAM)
    loaded = load(NO_RULES, tmp_path, store.engine)
    assert loaded.team.state == "unreviewed" and accept_files(store.engine, loaded.project_files) == []
    assert [r for r in load(NO_RULES, tmp_path, store.engine).policy.rules if r.scope == "team"] == []


def test_a_text_that_is_no_policy_is_refused_and_nothing_is_stored(store):
    with pytest.raises(team_policy.TeamPolicyError, match="invalid TOML"):
        team_policy.store_text(store.engine, 'deny = ["bash(git push *)"')
    assert stored_rows(store, "SELECT count(*) FROM team_policy") == [(0,)]
    notes = team_policy.store_text(store.engine, 'deny = ["bash()"]\n[hooks]\nPreToolUse = []\n')
    assert any("empty pattern" in n for n in notes) and any("hooks are not taken" in n for n in notes)


def _whimbrel(place: Path, data_dir: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "WHIMBREL_DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "app.cli", "policy", *args, "--config", str(place / "config.toml"),
                           "--data-dir", str(data_dir), "--workdir", str(place / "ws")],
                          cwd=place, capture_output=True, text=True, timeout=120, env=env)


def test_two_machines_on_one_postgresql_from_the_command_line(pg_server, tmp_path):
    url = pg_server.database()
    (tmp_path / "config.toml").write_text("")
    (tmp_path / "ws").mkdir()
    rules = tmp_path / "team.toml"
    rules.write_text(TEAM + 'ask = ["bash(echo \\u001b[31mred)"]\n')  # an escape in a rule: shown inert
    a, b = tmp_path / "a", tmp_path / "b"
    done = _whimbrel(tmp_path, a, url, "team", "set", str(rules))
    assert done.returncode == 0, done.stderr
    assert "Stored the team's policy" in done.stdout

    before = _whimbrel(tmp_path, b, url, "check", "bash(git push origin main)")
    assert before.stdout.startswith("ask:"), before.stdout
    assert "The team's policy in the store" in before.stderr and "do not apply here" in before.stderr
    shown = _whimbrel(tmp_path, b, url, "team", "show")
    assert "not reviewed here" in shown.stdout and "set by" in shown.stdout and "\x1b" not in shown.stdout

    reviewed = _whimbrel(tmp_path, b, url, "review", "--accept")
    assert reviewed.returncode == 0, reviewed.stderr
    assert "Team policy (in the store, set by" in reviewed.stdout and "deny  bash(git push *)" in reviewed.stdout
    assert "ask   bash(echo ␛[31mred)" in reviewed.stdout and "\x1b" not in reviewed.stdout
    assert "Accepted: the team's policy in the store" in reviewed.stdout
    after = _whimbrel(tmp_path, b, url, "check", "bash(git push origin main)")
    assert after.stdout.startswith("deny:") and "(team, team:1)" in after.stdout, after.stdout
    assert _whimbrel(tmp_path, a, url, "check", "bash(git push origin main)").stdout.startswith("ask:")

    rules.write_text(CHANGED)
    assert _whimbrel(tmp_path, a, url, "team", "set", str(rules)).returncode == 0
    again = _whimbrel(tmp_path, b, url, "check", "bash(git push origin main)")
    assert again.stdout.startswith("ask:") and "do not apply here" in again.stderr
    missing = _whimbrel(tmp_path, a, url, "team", "set")
    assert missing.returncode == 2 and "say which file" in missing.stderr and "Traceback" not in missing.stderr
