"""`whimbrel run` as a user runs it: a real subprocess, the real openai SDK, the fake model server, a real store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_llm.script import ErrorReply, TextReply, ToolCallReply
from tests.headless.helpers import ROOT, events, model_flags, normalized, run_whimbrel
from tests.subprocesses import stopped_at_exit

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "notes.md").write_text("hello\n")
    return folder


def stored(workstream_id: str):
    """The stored conversation of a workstream, read from the data dir the subprocess used."""
    from app.storage.store import Store

    store = Store(Path(os.environ["WHIMBREL_DATA_DIR"]) / "whimbrel.db")
    try:
        return store.get_workstream(workstream_id), store.load_messages(workstream_id)
    finally:
        store.close()


def test_plan_mode_listing_matches_the_golden_event_stream(fake_openai, workspace):
    """Acceptance 1: the prompt on stdin, --mode plan, stream-json; every line fits the schema; exit 0."""
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "ls"}), "c1")]),
                      TextReply("One file: notes.md.", reasoning="The listing shows one file."))
    done = run_whimbrel(workspace, "--mode", "plan", "--output", "stream-json", *model_flags(fake_openai.base_url),
                        stdin="list the files here\n")
    assert done.returncode == 0, done.stderr
    golden = [json.loads(line) for line in (GOLDEN / "plan_listing.jsonl").read_text().splitlines()]
    assert normalized(events(done.stdout), workspace) == golden
    assert done.stderr == ""  # stderr is not a terminal here: no progress lines, nothing went wrong
    [asked] = [m["content"] for m in fake_openai.requests[0]["messages"] if m["role"] == "user"]
    assert asked == "list the files here"  # stored and sent without echo's line break


def test_ask_mode_refuses_a_write_with_its_own_exit_code_and_the_reason(fake_openai, workspace):
    """Acceptance 2: the write is refused, the model is told why, stderr says why, exit 3."""
    fake_openai.queue(ToolCallReply([("write_file", json.dumps({"path": "x.txt", "content": "x"}), "w1")]),
                      TextReply("I was not allowed to create x.txt."))
    done = run_whimbrel(workspace, "--mode", "ask", *model_flags(fake_openai.base_url), "create x.txt")
    assert done.returncode == 3
    assert not (workspace / "x.txt").exists()
    assert done.stdout == "I was not allowed to create x.txt.\n"
    assert "refused write_file" in done.stderr and "nobody can give it in a headless run" in done.stderr
    told = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert "headless run" in told[0]["content"] and "--allow write_file" in told[0]["content"]


def test_accept_edits_writes_and_json_output_summarises_the_run(fake_openai, workspace):
    fake_openai.queue(ToolCallReply([("write_file", json.dumps({"path": "x.txt", "content": "made\n"}), "w1")]),
                      TextReply("Created x.txt."))
    done = run_whimbrel(workspace, "--mode", "accept-edits", "--output", "json", "--name", "maker",
                        *model_flags(fake_openai.base_url), "create x.txt")
    assert done.returncode == 0, done.stderr
    assert (workspace / "x.txt").read_text() == "made\n"
    [result] = events(done.stdout)
    assert result["type"] == "result" and result["outcome"] == "done" and result["text"] == "Created x.txt."
    [write] = result["tool_calls"]
    assert (write["name"], write["decision"], write["is_error"]) == ("write_file", "allowed", False)
    assert result["usage"]["model_requests"] == 2 and result["usage"]["completion_tokens"] > 0
    info, messages = stored(result["workstream_id"])
    assert info.alias == "maker" and info.title == "create x.txt"
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]


def test_deny_and_allow_rules(fake_openai, workspace):
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "echo hi > y.txt"}), "b1"),
                                     ("read_file", json.dumps({"path": "notes.md"}), "r1")]),
                      TextReply("ok"))
    done = run_whimbrel(workspace, "--allow", "bash(echo *)", "--allow", "edit(*.txt)", "--deny", "read_file",
                        "--output", "json",
                        *model_flags(fake_openai.base_url), "go")
    [result] = events(done.stdout)
    decisions = {c["name"]: c["decision"] for c in result["tool_calls"]}
    assert decisions == {"bash": "allowed", "read_file": "refused"}
    assert (workspace / "y.txt").read_text() == "hi\n" and done.returncode == 3
    assert "--deny read_file" in done.stderr


def test_a_path_outside_the_workspace_is_refused_even_in_auto_mode(fake_openai, workspace, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": str(secret)}), "r1")]), TextReply("no"))
    done = run_whimbrel(workspace, "--mode", "auto", "--output", "json", *model_flags(fake_openai.base_url), "read")
    [result] = events(done.stdout)
    assert done.returncode == 3 and result["tool_calls"][0]["decision"] == "refused"
    assert "top secret" not in json.dumps(fake_openai.requests[-1])


@pytest.mark.parametrize("args, words", [
    ([], "no prompt"),
    (["--allow", "bash(git", "hi"], "malformed rule"),
    (["--mode", "yolo", "hi"], "invalid choice"),
    (["--max-turns", "0", "hi"], "greater than 0"),
    (["--resume", "nosuchid", "hi"], "no workstream matches 'nosuchid'"),
    (["--continue", "hi"], "--continue: no earlier workstream"),
])
def test_usage_errors_exit_2_in_words(fake_openai, workspace, args, words):
    done = run_whimbrel(workspace, *model_flags(fake_openai.base_url), *args)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr


def test_no_model_configured_is_a_usage_error(workspace):
    done = run_whimbrel(workspace, "hello")
    assert done.returncode == 2 and "no model is configured" in done.stderr


def test_a_failed_model_request_exits_1_with_the_reason(fake_openai, workspace):
    fake_openai.queue(ErrorReply(400, "model 'fake-model' does not support tools"))
    done = run_whimbrel(workspace, "--output", "stream-json", *model_flags(fake_openai.base_url), "hi")
    assert done.returncode == 1 and "does not support tools" in done.stderr
    assert events(done.stdout)[-1]["outcome"] == "error"


def test_max_turns_stops_before_the_next_request_and_keeps_what_completed(fake_openai, workspace):
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.md"}), "r1")]),
                      TextReply("never sent"))
    done = run_whimbrel(workspace, "--max-turns", "1", "--output", "json", *model_flags(fake_openai.base_url), "go")
    [result] = events(done.stdout)
    assert done.returncode == 4 and result["outcome"] == "limit" and "--max-turns 1" in result["reason"]
    assert len(fake_openai.requests) == 1
    _info, messages = stored(result["workstream_id"])
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert "hello" in messages[-1].content and not messages[-1].is_error


def test_timeout_stops_a_slow_reply(fake_openai, workspace):
    """The limit is reported as such; what streamed by then is kept marked interrupted (the SIGTERM test
    below waits for the stream to start, so it checks the kept partial reply for certain)."""
    fake_openai.queue(TextReply("slow " * 2000, chunk_size=5, delay=0.05))
    done = run_whimbrel(workspace, "--timeout", "4", "--output", "json", *model_flags(fake_openai.base_url), "go")
    [result] = events(done.stdout)
    assert done.returncode == 4 and result["outcome"] == "limit" and "--timeout 4 s" in result["reason"]
    _info, messages = stored(result["workstream_id"])
    assert messages[0].role == "user"
    assert all(m.interrupted and m.content.startswith("slow") for m in messages[1:])


def test_budget_without_a_known_price_warns_that_it_cannot_be_enforced(fake_openai, workspace):
    done = run_whimbrel(workspace, "--max-budget-usd", "0.01", *model_flags(fake_openai.base_url), "hi")
    assert done.returncode == 0 and "--max-budget-usd cannot be enforced" in done.stderr


def test_sigterm_stops_cleanly_and_keeps_what_completed(fake_openai, workspace):
    fake_openai.queue(TextReply("partial " * 2000, chunk_size=8, delay=0.05))
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "run", "--output", "stream-json",
                             *model_flags(fake_openai.base_url), "go"], cwd=workspace, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    with stopped_at_exit(proc):
        lines = []
        for line in proc.stdout:  # wait until the reply streams
            lines.append(line)
            if '"text_delta"' in line:
                break
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=60)
    parsed = events("".join(lines) + rest)
    assert proc.returncode == 130 and parsed[-1]["outcome"] == "interrupted" and "SIGTERM" in parsed[-1]["reason"]
    _info, messages = stored(parsed[0]["workstream_id"])
    assert [m.role for m in messages] == ["user", "assistant"] and messages[1].interrupted
    assert "Traceback" not in err


def test_continue_and_resume_carry_the_conversation_on(fake_openai, workspace):
    flags = model_flags(fake_openai.base_url)
    first = run_whimbrel(workspace, "--output", "json", "--name", "daily", *flags, "first question")
    first_id = json.loads(first.stdout)["workstream_id"]
    second = run_whimbrel(workspace, "--continue", "--output", "json", *flags, "second question")
    assert json.loads(second.stdout)["workstream_id"] == first_id
    sent = [m.get("content") for m in fake_openai.requests[-1]["messages"] if m["role"] == "user"]
    assert sent == ["first question", "second question"]
    third = run_whimbrel(workspace, "--resume", "daily", "--output", "stream-json", *flags, "third")
    start = events(third.stdout)[0]
    assert start["workstream_id"] == first_id and start["resumed"] is True and start["name"] == "daily"
    _info, messages = stored(first_id)
    assert [m.content for m in messages if m.role == "user"] == ["first question", "second question", "third"]


def test_the_run_path_never_imports_textual(fake_openai, workspace):
    code = ("import sys\nfrom app.cli import main\nrc = main(sys.argv[1:])\n"
            "assert rc == 0, rc\nprint('TEXTUAL' if any(m.split('.')[0] == 'textual' for m in sys.modules) else 'CLEAN')")
    done = subprocess.run([sys.executable, "-c", code, "run", *model_flags(fake_openai.base_url), "hi"],
                          cwd=workspace, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "CLEAN"


def test_progress_goes_to_stderr_only_when_it_is_a_terminal(fake_openai, workspace):
    import pty

    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.md"}), "r1")]), TextReply("read it"))
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "app.cli", "run", *model_flags(fake_openai.base_url), "read"],
                              cwd=workspace, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL,
                              text=True, timeout=120)
        os.close(follower)
        follower = -1
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert proc.returncode == 0 and proc.stdout == "read it\n"
    text = seen.decode()
    assert "→ read_file notes.md" in text and "✓ read_file" in text and "Resume with: whimbrel --resume" in text


def test_text_output_is_made_inert(fake_openai, workspace):
    fake_openai.queue(TextReply("clear\x1b[2J done"))
    done = run_whimbrel(workspace, *model_flags(fake_openai.base_url), "hi")
    assert done.returncode == 0 and "\x1b" not in done.stdout and "␛[2J" in done.stdout


def test_the_schema_document_lists_every_event_type():
    schema = json.loads((ROOT / "docs" / "headless-events.schema.json").read_text())
    doc = (ROOT / "docs" / "headless.md").read_text()
    for name in schema["$defs"]:
        if "const" in schema["$defs"][name].get("properties", {}).get("type", {}):
            assert f"`{name}`" in doc, name
