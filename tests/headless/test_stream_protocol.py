"""What a script reading `whimbrel run`'s JSON sees: every call judged and reported, failures before the run as one
JSON line, the workstream id on every line, and a conversation held over stdin with --input-format stream-json."""

from __future__ import annotations

import json

import pytest

from tests.fake_llm.script import ErrorReply, TextReply, ToolCallReply
from tests.headless.helpers import events, model_flags, run_whimbrel
from tests.headless.test_run import workspace  # noqa: F401 - a fixture: a workspace with notes.md


def user_line(content) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}}) + "\n"


def test_a_read_is_judged_and_reported_and_every_line_names_the_workstream(fake_openai, workspace):
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.md"}), "r1")]), TextReply("Read."))
    done = run_whimbrel(workspace, "--output", "stream-json", *model_flags(fake_openai.base_url), "read notes")
    assert done.returncode == 0, done.stderr
    stream = events(done.stdout)
    kinds = [(e["type"], e.get("call_id")) for e in stream if e.get("call_id") == "r1"]
    assert kinds == [("tool_call", "r1"), ("approval", "r1"), ("tool_result", "r1")]
    [approval] = [e for e in stream if e["type"] == "approval"]
    assert approval["decision"] == "allowed" and approval["reason"] == "read_file only reads"
    assert {e["workstream_id"] for e in stream} == {stream[0]["workstream_id"]} and stream[0]["workstream_id"]


@pytest.mark.parametrize("output", ["json", "stream-json"])
@pytest.mark.parametrize("args, words", [
    (["--resume", "nosuchid", "hi"], "no workstream matches 'nosuchid'"),
    (["--mode", "yolo", "hi"], "invalid choice"),
    ([], "no prompt"),
    (["--allow", "bash(git", "hi"], "malformed rule"),
])
def test_a_run_that_cannot_start_prints_one_json_error_line(fake_openai, workspace, output, args, words):
    done = run_whimbrel(workspace, "--output", output, *model_flags(fake_openai.base_url), *args)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
    [line] = events(done.stdout)
    assert line["type"] == ("result" if output == "json" else "error")
    assert line["exit_code"] == 2 and words in line["reason"]


def test_text_output_keeps_stdout_empty_on_a_usage_error(fake_openai, workspace):
    done = run_whimbrel(workspace, *model_flags(fake_openai.base_url), "--resume", "nosuchid", "hi")
    assert done.returncode == 2 and done.stdout == "" and "nosuchid" in done.stderr


def test_user_turns_over_stdin_hold_one_conversation(fake_openai, workspace):
    fake_openai.queue(TextReply("First."), ErrorReply(400, "not this one"), TextReply("Third."))
    stdin = (user_line("one") + "\n" + user_line([{"type": "text", "text": "two"}])
             + user_line([{"type": "text", "text": "three"}, {"type": "text", "text": "and more"}]))
    done = run_whimbrel(workspace, "--input-format", "stream-json", "--output", "stream-json",
                        *model_flags(fake_openai.base_url), stdin=stdin)
    stream = events(done.stdout)
    assert [e["type"] for e in stream].count("session_start") == 1
    ends = [e for e in stream if e["type"] == "turn_end"]
    assert [e["outcome"] for e in ends] == ["done", "error", "done"]
    assert done.returncode == 1  # the worst turn's code: one request failed
    assert {e["workstream_id"] for e in stream} == {stream[0]["workstream_id"]}
    asked = [m["content"] for m in fake_openai.requests[-1]["messages"] if m["role"] == "user"]
    assert asked == ["one", "two", "three\nand more"]
    assert "".join(e["text"] for e in stream if e["type"] == "text_delta") == "First.Third."


def test_a_line_that_is_not_a_user_turn_ends_the_run_with_a_usage_error(fake_openai, workspace):
    fake_openai.queue(TextReply("First."))
    stdin = user_line("one") + user_line([{"type": "image", "data": "x"}]) + user_line("never")
    done = run_whimbrel(workspace, "--input-format", "stream-json", "--output", "stream-json",
                        *model_flags(fake_openai.base_url), stdin=stdin)
    stream = events(done.stdout)
    assert done.returncode == 2 and [e["type"] for e in stream][-2:] == ["turn_end", "error"]
    assert "only text content" in stream[-1]["reason"] and stream[-1]["workstream_id"] == stream[0]["workstream_id"]
    assert len(fake_openai.requests) == 1


@pytest.mark.parametrize("args, words", [
    (["--output", "json"], "needs --output stream-json"),
    (["--output", "stream-json", "hi"], "give no prompt argument"),
])
def test_stream_json_input_is_refused_where_it_cannot_work(fake_openai, workspace, args, words):
    done = run_whimbrel(workspace, "--input-format", "stream-json", *args, *model_flags(fake_openai.base_url),
                        stdin=user_line("one"))
    assert done.returncode == 2 and words in done.stderr and len(events(done.stdout)) == 1
