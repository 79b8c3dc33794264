"""Hooks in Claude Code's format, run as real scripts: exit 2 blocks, JSON decides or edits."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.permissions.hooks import parse_hooks, run_hooks

PY = sys.executable


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"{PY} {path}"


NO_RM = '''import json, sys
event = json.load(sys.stdin)
command = event["tool_input"].get("command", "")
if command.split()[:1] == ["rm"]:
    print("rm is not allowed here; move files to trash/ instead", file=sys.stderr)
    sys.exit(2)
'''


def hooks_for(event: str, command: str, matcher: str = "bash", timeout: float | None = None):
    spec = {"type": "command", "command": command}
    if timeout is not None:
        spec["timeout"] = timeout
    hooks, problems = parse_hooks({event: [{"matcher": matcher, "hooks": [spec]}]}, "user", "config.toml")
    assert not problems
    return hooks


async def test_exit_2_blocks_with_stderr(tmp_path):
    hooks = hooks_for("PreToolUse", script(tmp_path, "no_rm.py", NO_RM))
    blocked = await run_hooks(hooks, "PreToolUse", {"tool_name": "bash", "tool_input": {"command": "rm -rf x"}},
                              tmp_path, tool="bash")
    assert blocked.decision == "deny" and "move files to trash/" in blocked.reason
    fine = await run_hooks(hooks, "PreToolUse", {"tool_name": "bash", "tool_input": {"command": "ls"}},
                           tmp_path, tool="bash")
    assert fine.decision is None and not fine.failures


async def test_the_event_arrives_as_json_on_stdin(tmp_path):
    dump = tmp_path / "event.json"
    hooks = hooks_for("PreToolUse", script(tmp_path, "dump.py", f"import sys; open({str(dump)!r}, 'w').write(sys.stdin.read())"))
    await run_hooks(hooks, "PreToolUse", {"tool_name": "bash", "tool_input": {"command": "ls"}}, tmp_path, tool="bash")
    event = json.loads(dump.read_text())
    assert event["hook_event_name"] == "PreToolUse" and event["tool_input"] == {"command": "ls"}
    assert event["cwd"] == str(tmp_path)


@pytest.mark.parametrize("decision", ["allow", "deny", "ask"])
async def test_json_output_decides(tmp_path, decision):
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                  "permissionDecisionReason": "policy says so"}}
    hooks = hooks_for("PreToolUse", script(tmp_path, "d.py", f"print({json.dumps(json.dumps(out))})"))
    result = await run_hooks(hooks, "PreToolUse", {"tool_name": "bash", "tool_input": {}}, tmp_path, tool="bash")
    assert result.decision == decision and result.reason == "policy says so"


async def test_json_output_changes_the_arguments(tmp_path):
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -la"}}}
    hooks = hooks_for("PreToolUse", script(tmp_path, "u.py", f"print({json.dumps(json.dumps(out))})"))
    result = await run_hooks(hooks, "PreToolUse", {"tool_name": "bash", "tool_input": {"command": "ls"}}, tmp_path,
                             tool="bash")
    assert result.updated_input == {"command": "ls -la"}


async def test_a_slow_hook_is_stopped_at_its_timeout(tmp_path):
    hooks = hooks_for("PreToolUse", script(tmp_path, "slow.py", "import time; time.sleep(60)"), timeout=0.5)
    result = await run_hooks(hooks, "PreToolUse", {"tool_name": "bash", "tool_input": {}}, tmp_path, tool="bash")
    assert result.decision is None and "did not finish within 0.5s" in result.failures[0]


async def test_a_failing_hook_is_reported_not_obeyed(tmp_path):
    hooks = hooks_for("PreToolUse", script(tmp_path, "bad.py", "import sys; print('oops', file=sys.stderr); sys.exit(1)"))
    result = await run_hooks(hooks, "PreToolUse", {"tool_name": "bash", "tool_input": {}}, tmp_path, tool="bash")
    assert result.decision is None and "exit code 1" in result.failures[0] and "oops" in result.failures[0]


async def test_matchers_use_regexes_and_claude_code_names(tmp_path):
    marker = tmp_path / "ran"
    command = script(tmp_path, "m.py", f"open({str(marker)!r}, 'a').write('x')")
    for matcher, tool, runs in (("Bash", "bash", True), ("Edit|Write", "write_file", True), ("Edit|Write", "bash", False),
                                ("*", "mcp__x__y", True), ("mcp__github__.*", "mcp__github__issue", True)):
        marker.unlink(missing_ok=True)
        await run_hooks(hooks_for("PreToolUse", command, matcher), "PreToolUse", {"tool_name": tool}, tmp_path, tool=tool)
        assert marker.exists() == runs, (matcher, tool)


def test_bad_hook_tables_are_reported():
    hooks, problems = parse_hooks({"PreToolUse": [{"matcher": "x", "hooks": [{"type": "prompt"}]}],
                                   "BeforeEverything": []}, "user", "config.toml")
    assert not hooks and len(problems) == 2 and all(p.startswith("config.toml") for p in problems)
