"""Hook scripts written for Claude Code run unchanged: its tool names and input keys, and the
SessionStart and Notification events, through a real Session, real SQLite and real scripts."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from app.engine import events as ev
from tests.engine.harness import Recorder
from tests.engine import test_permission_flow as flow
from tests.engine.test_permission_flow import App, audit_rows, tool_results
from tests.fake_llm.script import TextReply, ToolCallReply

place = flow.place  # the fixture: a git workspace, a config and a data dir

# As a Claude Code user writes it: Write/Edit of a .env file is blocked, by Claude Code's names.
PROTECT_ENV = '''import json, sys
event = json.load(sys.stdin)
if event["tool_name"] in ("Write", "Edit") and event["tool_input"]["file_path"].endswith(".env"):
    print("Never write .env files; put settings in settings.toml", file=sys.stderr)
    sys.exit(2)
'''
# Moves every Write into drafts/, answering in Claude Code's keys.
TO_DRAFTS = '''import json, os, sys
event = json.load(sys.stdin)
tool_input = dict(event["tool_input"])
tool_input["file_path"] = os.path.join("drafts", os.path.basename(tool_input["file_path"]))
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                         "updatedInput": tool_input}}))
'''


def config_with(tmp_path: Path, hooks: list[tuple[str, str, str]]) -> Path:
    """A config.toml with one command hook per (event, matcher, script body)."""
    lines = []
    for index, (event, matcher, body) in enumerate(hooks):
        script = tmp_path / f"hook{index}.py"
        script.write_text(body)
        lines += [f"[[hooks.{event}]]", f'matcher = "{matcher}"', f"[[hooks.{event}.hooks]]",
                  'type = "command"', f'command = "{sys.executable} {script}"', ""]
    config = tmp_path / "hooks.toml"
    config.write_text("\n".join(lines))
    return config


def write_call(path: str, call_id: str) -> ToolCallReply:
    return ToolCallReply([("write_file", json.dumps({"path": path, "content": "X=1\n"}), call_id)])


async def test_a_claude_code_script_blocks_a_write_by_its_names(fake_openai, place, tmp_path):
    ws, _config, data = place
    config = config_with(tmp_path, [("PreToolUse", "Write|Edit", PROTECT_ENV)])
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(write_call(".env", "w1"), write_call("notes.txt", "w2"), TextReply("ok"))
    session = await app.start(Recorder())
    await session.run_turn("write settings")
    results = tool_results(fake_openai)
    assert "Never write .env files" in results[0] and not (ws / ".env").exists()
    assert (ws / "notes.txt").read_text() == "X=1\n"
    await app.stop()
    rows = {r.call_id: r for r in audit_rows(data)}
    assert rows["w1"].decision == "refused" and rows["w1"].decided_by.startswith("hook: blocked by the hook")


async def test_updated_input_in_claude_code_keys_changes_the_call(fake_openai, place, tmp_path):
    ws, _config, data = place
    (ws / "drafts").mkdir()
    config = config_with(tmp_path, [("PreToolUse", "Write", TO_DRAFTS)])
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(write_call("report.md", "d1"), TextReply("ok"))
    recorder = Recorder()
    session = await app.start(recorder)
    await session.run_turn("write the report")
    assert (ws / "drafts" / "report.md").read_text() == "X=1\n" and not (ws / "report.md").exists()
    assert not recorder.approvals  # the hook allowed it
    await app.stop()


async def test_the_event_carries_claude_code_names_and_whimbrels(fake_openai, place, tmp_path):
    ws, _config, data = place
    dump = tmp_path / "events.jsonl"
    body = f"import sys\nopen({str(dump)!r}, 'a').write(sys.stdin.read().strip() + '\\n')\n"
    config = config_with(tmp_path, [("PreToolUse", "Read|Bash", body)])
    (ws / "a.txt").write_text("hello\n")
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "a.txt"}), "r1"),
                                     ("bash", json.dumps({"command": "true", "timeout": 5}), "b1")]),
                      TextReply("ok"))
    session = await app.start(Recorder())
    await session.run_turn("read it")
    await app.stop()
    events = {e["tool_name"]: e for e in map(json.loads, dump.read_text().splitlines())}
    assert events["Read"]["tool_input"] == {"file_path": "a.txt"}
    assert events["Read"]["whimbrel_tool_name"] == "read_file"
    assert events["Bash"]["tool_input"] == {"command": "true", "timeout": 5000}
    assert events["Bash"]["hook_event_name"] == "PreToolUse" and events["Bash"]["cwd"] == str(ws)


async def test_session_start_runs_once_and_its_stdout_reaches_the_model(fake_openai, place, tmp_path):
    ws, _config, data = place
    runs = tmp_path / "runs.txt"
    body = (f"import json, sys\nevent = json.load(sys.stdin)\nopen({str(runs)!r}, 'a').write(event['source'] + '\\n')\n"
            "print('This project builds with pnpm, never npm.')\n")
    config = config_with(tmp_path, [("SessionStart", "", body)])
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(TextReply("noted"), TextReply("again"))
    session = await app.start(Recorder())
    await session.run_turn("hello")
    await session.run_turn("and again")
    first_user = [m for m in fake_openai.requests[0]["messages"] if m["role"] == "user"][0]["content"]
    assert "hello" in first_user and "This project builds with pnpm, never npm." in first_user
    second_user = [m for m in fake_openai.requests[1]["messages"] if m["role"] == "user"][-1]["content"]
    assert second_user == "and again"
    assert runs.read_text() == "startup\n"
    await app.stop()


async def test_a_notification_hook_hears_of_a_permission_prompt(fake_openai, place, tmp_path):
    ws, _config, data = place
    config, heard = notification_listener(tmp_path, "")
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "touch made.txt"}), "n1")]), TextReply("ok"))
    recorder = Recorder(decide=None)
    session = await app.start(recorder)
    turn = asyncio.create_task(session.run_turn("make a file"))
    await recorder.approval_seen.wait()
    event = await until_written(heard)  # the hook runs beside the open modal
    assert event["hook_event_name"] == "Notification" and event["notification_type"] == "permission_prompt"
    assert event["message"] == "Whimbrel needs your permission to use Bash"
    assert event["session_id"] == session.workstream_id and event["cwd"] == str(ws)
    [request] = recorder.approvals
    request.future.set_result({"n1": ev.ApprovalDecision("approve")})
    await turn
    assert (ws / "made.txt").exists()
    await app.stop()


async def test_a_path_a_hook_rewrote_is_judged_where_it_now_points(fake_openai, place, tmp_path):
    ws, _config, data = place
    outside = tmp_path / "elsewhere.md"
    body = TO_DRAFTS.replace('os.path.join("drafts", os.path.basename(tool_input["file_path"]))', repr(str(outside)))
    config = config_with(tmp_path, [("PreToolUse", "Write", body)])
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(write_call("report.md", "o1"), TextReply("ok"))
    recorder = Recorder(lambda item: ev.ApprovalDecision("deny"))
    session = await app.start(recorder)
    await session.run_turn("write the report")
    [asked] = recorder.approvals
    assert "outside the workspace" in asked.items[0].reason and not outside.exists()
    await app.stop()


# A UserPromptSubmit hook in Claude Code's JSON shape, adding context for the model.
PROMPT_CONTEXT = '''import json, sys
event = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                         "additionalContext": "Ticket ABC-123 is in progress."}}))
'''


async def test_prompt_context_reaches_the_model_but_not_the_users_message(fake_openai, place, tmp_path):
    ws, _config, data = place
    config = config_with(tmp_path, [("UserPromptSubmit", "", PROMPT_CONTEXT)])
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(TextReply("noted"))
    recorder = Recorder()
    session = await app.start(recorder)
    await session.run_turn("what is open?")
    sent = [m for m in fake_openai.requests[0]["messages"] if m["role"] == "user"][-1]["content"]
    assert sent.startswith("what is open?") and "Ticket ABC-123 is in progress." in sent
    assert [e.text for e in recorder.of(ev.UserMessageAdded)] == ["what is open?"]
    conversation = await app.store.load_conversation(session.workstream_id)
    [stored] = [m for m in conversation.messages if m.role == "user"]
    assert stored.content == "what is open?"  # what the transcript, history, export and search show
    assert stored.raw == {"hook_context": "Ticket ABC-123 is in progress."}
    await app.stop()


def notification_listener(tmp_path: Path, matcher: str) -> tuple[Path, Path]:
    """A config whose Notification hook (for `matcher`) writes the event it got to the returned file."""
    heard = tmp_path / "heard.json"
    body = f"import sys\nopen({str(heard)!r}, 'w').write(sys.stdin.read())\n"
    return config_with(tmp_path, [("Notification", matcher, body)]), heard


async def until_written(path: Path, timeout: float = 30.0) -> dict:
    """The JSON a background hook wrote to `path`, once it is whole (a condition, with a deadline)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (path.exists() and path.read_text().rstrip().endswith("}")):
        assert loop.time() < deadline, f"the hook did not write {path} within {timeout:g} s"
        await asyncio.sleep(0.05)
    return json.loads(path.read_text())


async def test_the_notify_tool_fires_notification_hooks_in_claude_codes_shape(fake_openai, place, tmp_path):
    ws, _config, data = place
    config, heard = notification_listener(tmp_path, "notify")
    app = App(fake_openai, ws, config, data)
    fake_openai.queue(ToolCallReply([("notify", json.dumps({"message": "The build finished."}), "n1")]),
                      TextReply("told them"))
    recorder = Recorder()
    session = await app.start(recorder)
    await session.run_turn("tell me when the build is done")
    event = await until_written(heard)
    assert event == {"hook_event_name": "Notification", "cwd": str(ws), "session_id": session.workstream_id,
                     "transcript_path": "", "permission_mode": "ask", "message": "The build finished.",
                     "notification_type": "notify", "title": "Whimbrel"}
    assert [e.message for e in recorder.of(ev.UserNotified)] == ["The build finished."]
    await app.stop()
