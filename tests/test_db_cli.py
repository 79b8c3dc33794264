"""`whimbrel db status|migrate|copy`: a personal SQLite history copied into PostgreSQL, row for row, twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from app.checkpoints.records import fork_workstream
from app.memory.memory_store import MemoryStore
from app.memory.records import Visibility
from app.storage.identity import who
from app.storage.schema_upgrade import HEAD
from app.permissions import audit
from app.storage.leases import Owner
from app.storage.store import Store
from app.permissions import team_policy
from app.transfer.db_copy import WORKSTREAM_TABLES
from app.vocabulary.messages import Message, ToolCall
from tests.pg_fixtures import stored_rows

ROOT = Path(__file__).resolve().parents[1]
HERE = Visibility(workstream_id="w", workspace="/work/project")


def whimbrel(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _fill(store: Store) -> list[str]:
    """A history with every kind of row a workstream has: a long text in pieces, tool calls, usage, a fork."""
    first = store.create_workstream(title="first", workdir="/work/project")
    store.update_workstream(first, alias="mine")
    store.add_message(first, Message(role="user", content="how does the migration run?"))
    store.add_message(first, Message(role="assistant", content="x" * 600_000 + " tail",
                                     tool_calls=[ToolCall(id="c1", name="read_file", arguments='{"path": "a"}')]))
    store.add_message(first, Message(role="tool", content="file text", tool_call_id="c1", name="read_file"))
    store.add_usage(first, model="m", prompt_tokens=10, completion_tokens=5, cost=0.01)
    store.add_prompt_history(first, "how does the migration run?")
    store.set_config(first, "model_alias", "fast")
    store.clear_context(first)
    store.add_message(first, Message(role="user", content="after the clear"))
    draft = store.add_message(first, Message(role="assistant", content="part", interrupted=True))
    store.append_draft(first, draft, " streamed", "")
    forked = fork_workstream(store, first, 2, title="forked", workdir="/work/project", model=None)
    MemoryStore(store.engine).save(HERE, "style", "tabs, not spaces")
    assert team_policy.store_text(store.engine, 'allow = ["bash(make deploy)"]\n') == []
    audit.append(store.engine, audit.AuditRow(first, "c1", "read_file", "{}", "allowed", "mode", "ask", "low",
                                              "none", "done", 3.0))
    store.take_lease(first, Owner("i1", os.getpid(), "laptop"))
    return [first, forked]


def _without_numbers(store: Store) -> dict[str, list[tuple]]:
    """Every copied table's rows with the database's numbers left out (a copy renumbers them)."""
    numbered = {"id", "message_id", "last_message_id", "user_message_id", "undoes"}
    out = {}
    for table in ["workstreams", *(t for t, _, _ in WORKSTREAM_TABLES), "memories", "audit_log", "mcp_calls",
                  "team_policy"]:
        with store.engine.connect() as conn:
            rows = [{k: v for k, v in r._mapping.items() if k not in numbered or table in ("workstreams",
                                                                                          "subagent_runs", "watches")}
                    for r in conn.execute(f"SELECT * FROM {table}")]
        out[table] = sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)
    return out


def test_copy_into_postgresql_is_row_for_row_and_idempotent(tmp_path: Path, pg_server) -> None:
    data = tmp_path / "data"
    source = Store(data / "whimbrel.db")
    ids = _fill(source)
    source.close()
    source = Store(data / "whimbrel.db")  # as the copy finds it: the interrupted draft folded at opening
    expected = _without_numbers(source)
    conversations = {ws: source.load_messages(ws) for ws in ids}
    source.close()
    url = pg_server.database()
    env = {"WHIMBREL_DATA_DIR": str(data)}

    done = whimbrel("db", "copy", "--to", url, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "2 workstreams" in done.stdout and "0 workstream(s) already there" in done.stdout
    target = Store(url)
    try:
        assert _without_numbers(target) == expected
        assert {ws: target.load_messages(ws) for ws in ids} == conversations
        assert [h.snippet for h in target.search("migration")] != []
        assert stored_rows(target, "SELECT count(*) FROM workstream_leases") == [(0,)], "live state stays home"
    finally:
        target.close()

    again = whimbrel("db", "copy", "--to", url, cwd=tmp_path, env=env)
    assert again.returncode == 0 and "nothing new" in again.stdout and "2 workstream(s) already there" in again.stdout
    target = Store(url)
    try:
        assert _without_numbers(target) == expected
    finally:
        target.close()

    status = whimbrel("db", "status", "--db-url", url, cwd=tmp_path, env=env)
    assert status.returncode == 0, status.stderr
    assert "store: PostgreSQL postgresql://" in status.stdout and f"revision {HEAD}" in status.stdout
    assert "workstreams: 2" in status.stdout and "live instances: 0" in status.stdout
    migrated = whimbrel("db", "migrate", "--db-url", url, cwd=tmp_path, env=env)
    assert migrated.returncode == 0 and migrated.stdout.strip().endswith(f"at revision {HEAD}"), migrated.stderr


def test_status_names_the_sqlite_file_and_the_live_instances(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = Store(data / "whimbrel.db")
    store.take_lease(store.create_workstream(), Owner("abcdef1234", os.getpid(), "buildbox"))
    store.close()
    done = whimbrel("db", "status", cwd=tmp_path, env={"WHIMBREL_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    assert f"store: SQLite {data / 'whimbrel.db'}" in done.stdout
    assert "live instances: 1" in done.stdout
    assert f"{who()} on buildbox pid {os.getpid()} (abcdef12): 1 workstream open" in done.stdout  # who holds it


def test_copy_into_a_team_store_that_already_has_work_renumbers_and_keeps_theirs(tmp_path: Path, pg_server) -> None:
    """The target's own rows hold the numbers the copied rows had: the copies take new ones, and the
    pieces of a long message still come back with it."""
    from app.transfer.db_copy import copy_store

    source, target = Store(tmp_path / "mine.db"), Store(pg_server.database())
    try:
        theirs = target.create_workstream(title="theirs")
        for n in range(5):
            target.add_message(theirs, Message(role="user", content=f"their message {n}"))
        mine = _fill(source)
        report = copy_store(source, target)
        assert report.added["workstreams"] == 2 and report.skipped_workstreams == []
        for ws in mine:  # the same messages, by new numbers
            assert [replace(m, db_id=None) for m in target.load_messages(ws)] == \
                [replace(m, db_id=None) for m in source.load_messages(ws)]
        assert [m.content for m in target.load_messages(theirs)] == [f"their message {n}" for n in range(5)]
        assert copy_store(source, target).total == 0
    finally:
        source.close()
        target.close()


def test_a_headless_turn_goes_to_the_team_store_named_in_the_config(fake_openai, tmp_path: Path, pg_server,
                                                                   monkeypatch) -> None:
    """`whimbrel run` with `[database] url` and `[team] name` in config.toml: the turn, its tool call and its
    audit row are in PostgreSQL, each saying who; nothing is written to the data dir's SQLite file."""
    from tests.fake_llm.script import TextReply, ToolCallReply
    from tests.headless.helpers import model_flags, run_whimbrel

    url = pg_server.database()
    config = tmp_path / "config.toml"
    config.write_text(f'[database]\nurl = "{url}"\n\n[team]\nname = "alice (laptop)"\n')
    monkeypatch.setenv("WHIMBREL_CONFIG", str(config))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("hello\n")
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.md"}), "r1")]), TextReply("It says hello."))
    done = run_whimbrel(workspace, "--output", "json", *model_flags(fake_openai.base_url), "read notes.md")
    assert done.returncode == 0, done.stderr
    store = Store(url)
    try:
        assert stored_rows(store, "SELECT role, who FROM messages ORDER BY seq") == [
            ("user", "alice (laptop)"), ("assistant", "alice (laptop)"), ("tool_call", "alice (laptop)"),
            ("tool_result", "alice (laptop)"), ("assistant", "alice (laptop)")]
        [row] = audit.query(store.engine)
        assert (row.tool, row.who) == ("read_file", "alice (laptop)")
    finally:
        store.close()
    assert not (Path(os.environ["WHIMBREL_DATA_DIR"]) / "whimbrel.db").exists()


def test_the_store_options_work_after_the_verb_as_before_it(tmp_path: Path) -> None:
    """`whimbrel db status --data-dir X` (as people type it) names the same store as `db --data-dir X status`."""
    data = tmp_path / "data"
    Store(data / "whimbrel.db").close()
    for argv in (("db", "status", "--data-dir", str(data)), ("db", "--data-dir", str(data), "status")):
        done = whimbrel(*argv, cwd=tmp_path, env={"WHIMBREL_DATA_DIR": str(tmp_path / "elsewhere")})
        assert done.returncode == 0, done.stderr
        assert f"store: SQLite {data / 'whimbrel.db'}" in done.stdout, argv
