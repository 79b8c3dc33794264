"""`whimbrel mcp serve` decides through the same permission engine as the TUI: config rules, hooks, the
command line's rules and mode, protected places, the sandbox; every call writes an audit row (decision
and who made it, sandbox level, status, duration), arguments redacted. Real process, real SDK client,
real SQLite, real hook script."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.mcp.serve import ToolServer, split_rules
from app.permissions import audit
from app.permissions.unattended import cli_rules
from app.sandbox.bwrap import available
from app.storage.async_store import AsyncStore
from tests.mcp.test_serve import stdio_params
from tests.permissions.hook_config import config_with_no_rm_hook
from tools.registry import ToolRegistry
from tools.unattended import unattended_guard

SECRET = "sk-live-abcdef1234567890"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "secrets").mkdir(parents=True)
    (root / "notes.md").write_text("hello\n")
    return root


def config_file(tmp_path: Path) -> Path:
    return config_with_no_rm_hook(tmp_path, 'deny = ["write_file(secrets/**)"]')


def audit_rows() -> dict[str, audit.AuditRow]:
    """The rows `mcp serve` wrote to the data dir's store, by tool and first argument."""
    from app.storage.store import Store

    store = Store(Path(os.environ["WHIMBREL_DATA_DIR"]) / "whimbrel.db")
    try:
        rows = audit.query(store.engine)
    finally:
        store.close()
    out = {}
    for row in rows:
        args = json.loads(row.arguments)
        out[f"{row.tool} {args.get('command') or args.get('path') or ''}".strip()] = row
    return out


async def test_config_rules_hooks_and_cli_rules_decide_and_every_call_is_audited(workspace, tmp_path):
    from mcp import Client

    params = stdio_params(workspace, "--config", str(config_file(tmp_path)), "--tools", "write_file,bash",
                          "--allow", "write_file", "--allow", "bash(ls),bash(rm *)")
    async with Client(params, read_timeout_seconds=60) as client:
        async def call(name: str, arguments: dict) -> tuple[str, bool]:
            result = await client.call_tool(name, arguments)
            return result.content[0].text, bool(result.is_error)

        text, error = await call("write_file", {"path": "secrets/key.txt", "content": "x"})
        assert error and "deny write_file(secrets/**)" in text  # the config's rule, as in the TUI
        text, error = await call("write_file", {"path": "new.md", "content": f"the key is {SECRET}\n"})
        assert not error, text
        text, error = await call("bash", {"command": "ls"})
        assert not error and "notes.md" in text
        text, error = await call("bash", {"command": "rm -rf secrets"})
        assert error and "rm is not allowed here: move files to trash/" in text  # the hook, over an --allow
        text, error = await call("bash", {"command": "touch made.txt"})
        assert error and "nobody is here to approve it over MCP" in text and "--allow bash" in text
        text, error = await call("read_file", {"path": str(tmp_path / "config.toml")})
        assert error and "outside the workspace" in text
        text, error = await call("read_file", {"nope": 1})
        assert error
    assert not (workspace / "secrets" / "key.txt").exists() and (workspace / "secrets").is_dir()
    assert not (workspace / "made.txt").exists() and SECRET in (workspace / "new.md").read_text()

    rows = audit_rows()
    assert {r.workstream_id for r in rows.values()} == {"mcp-serve"}
    denied = rows["write_file secrets/key.txt"]
    assert (denied.decision, denied.status) == ("refused", "refused")
    assert denied.decided_by.startswith("rule deny write_file(secrets/**) (user, ")
    written = rows["write_file new.md"]
    assert (written.decision, written.status, written.sandbox) == ("allowed", "done", "n/a")
    assert written.decided_by.startswith("rule allow write_file (cli, --allow write_file)")
    assert SECRET not in written.arguments and "[redacted]" in written.arguments
    assert written.duration_ms is not None and written.duration_ms >= 0
    listed = rows["bash ls"]
    assert (listed.decision, listed.status) == ("allowed", "done")
    assert listed.sandbox == ("workspace-write, network off" if available() else "none")
    blocked = rows["bash rm -rf secrets"]
    assert (blocked.decision, blocked.status) == ("refused", "refused")
    assert blocked.decided_by.startswith("hook: blocked by the hook")
    asked = rows["bash touch made.txt"]
    assert asked.decision == "refused" and "nobody is here to approve it over MCP" in asked.decided_by
    assert rows[f"read_file {tmp_path / 'config.toml'}"].decision == "refused"
    invalid = rows["read_file"]
    assert (invalid.decision, invalid.decided_by) == ("refused", "not run: the call was invalid")
    assert all(r.mode == "ask" for r in rows.values())


async def test_plan_mode_refuses_a_write_even_with_an_allow_rule(workspace, tmp_path):
    store = await AsyncStore.open(tmp_path / "data" / "whimbrel.db")
    try:
        guard = await unattended_guard(config=None, workspace=workspace, data_dir=tmp_path / "data",
                                       config_path=tmp_path / "config.toml", store=store, mode="plan",
                                       rules=cli_rules(["write_file"], []), nobody="nobody can answer")
        server = ToolServer(ToolRegistry.load_builtin(), workspace, expose={"write_file"}, guard=guard)
        text, error = await server.call("write_file", {"path": "plan.md", "content": "x"})
        assert error and "plan mode is read-only" in text and not (workspace / "plan.md").exists()
        text, error = await server.call("read_file", {"path": "notes.md"})
        assert not error and "hello" in text
        rows = await store.run(audit.query, store.store.engine)
        assert [(r.tool, r.decision, r.mode) for r in rows] == [("write_file", "refused", "plan"),
                                                                ("read_file", "allowed", "plan")]
        assert rows[1].decided_by == "tool: read_file only reads" and rows[1].status == "done"
    finally:
        await store.aclose()


def test_allow_values_split_at_commas_outside_parentheses():
    assert split_rules(["write_file,math", "bash(git log --format=%H,%s)", " "]) == \
        ["write_file", "math", "bash(git log --format=%H,%s)"]
