"""Code mode in `whimbrel run`: a real subprocess, the real openai SDK, the fake model server,
the real sandbox; a program's calls are judged by the headless policy one by one and stream as events."""

from __future__ import annotations

import json
from pathlib import Path

from tests.engine.test_code_mode import run_code
from tests.fake_llm.script import TextReply
from tests.headless.helpers import events, model_flags, normalized, run_whimbrel
from tests.headless.test_run import workspace  # noqa: F401 - a fixture: a workspace with notes.md

GOLDEN = Path(__file__).parent / "golden"
PROGRAM = ("print(len((await tools.read_file(path='notes.md')).splitlines()), 'line(s)')\n"
           "try:\n    await tools.write_file(path='x.txt', content='x')\n"
           "except ToolCallError as error:\n    print('refused:', error)\n")


def test_a_program_streams_its_calls_and_a_refusal_raises_inside_it(fake_openai, workspace):
    """--tools-mode code: the model gets only run_code; the write is refused inside the program with
    the headless reason, each sub-call has its events (parent_call_id), the run exits 3 (refused)."""
    fake_openai.queue(run_code(PROGRAM), TextReply("Read it; the write was refused."))
    done = run_whimbrel(workspace, "--tools-mode", "code", "--output", "stream-json",
                        *model_flags(fake_openai.base_url), "read notes.md, then write x.txt")
    assert done.returncode == 3, done.stderr
    assert not (workspace / "x.txt").exists()
    stream = normalized(events(done.stdout), workspace)
    golden = [json.loads(line) for line in (GOLDEN / "code_mode_refusal.jsonl").read_text().splitlines()]
    assert [e for e in stream if e["type"] != "text_delta"] == golden
    assert [t["function"]["name"] for t in fake_openai.requests[0]["tools"]] == ["run_code"]
    told = [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(told) == 1 and told[0]["content"].startswith("1 line(s)\nrefused: Whimbrel's permission policy")
    assert "refused write_file" in done.stderr and "nobody can give it in a headless run" in done.stderr


def test_the_config_mode_applies_and_the_json_summary_lists_sub_calls(fake_openai, workspace, tmp_path):
    """[tools] mode = "both" in the config: native tools and run_code; --output json lists the
    program's call under its run_code call."""
    config = tmp_path / "config.toml"
    config.write_text('[tools]\nmode = "both"\n')
    fake_openai.queue(run_code("print(await tools.read_file(path='notes.md'))"), TextReply("It says hello."))
    done = run_whimbrel(workspace, "--config", str(config), "--output", "json",
                        *model_flags(fake_openai.base_url), "what does notes.md say?")
    assert done.returncode == 0, done.stderr
    names = [t["function"]["name"] for t in fake_openai.requests[0]["tools"]]
    assert "run_code" in names and "read_file" in names
    assert "## Tools as Python" in fake_openai.requests[0]["messages"][0]["content"]
    [summary] = events(done.stdout)
    calls = {c["call_id"]: c for c in summary["tool_calls"]}
    assert calls["rc1:code:1"]["name"] == "read_file" and calls["rc1:code:1"]["parent_call_id"] == "rc1"
    assert calls["rc1:code:1"]["decision"] == "allowed" and calls["rc1:code:1"]["output"].strip().startswith("1\thello")
    assert "parent_call_id" not in calls["rc1"] and calls["rc1"]["output"].strip().startswith("1\thello")


def test_the_flag_wins_over_the_config(fake_openai, workspace, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[tools]\nmode = "code"\n')
    fake_openai.queue(TextReply("hi"))
    done = run_whimbrel(workspace, "--config", str(config), "--tools-mode", "native",
                        *model_flags(fake_openai.base_url), "hello")
    assert done.returncode == 0, done.stderr
    names = [t["function"]["name"] for t in fake_openai.requests[0]["tools"]]
    assert "run_code" not in names and "read_file" in names
    assert "Tools as Python" not in fake_openai.requests[0]["messages"][0]["content"]


def test_progress_lines_nest_a_programs_calls_under_its_run_code():
    """On a terminal, stderr shows a program's calls indented under the run_code call."""
    import io

    from app.headless.output import TextOutput

    err = io.StringIO()
    out = TextOutput(io.StringIO(), err, progress=True)
    out.event({"type": "tool_call", "call_id": "rc1", "name": "run_code", "arguments": "{}",
               "preview": "for name in names:  … 3 lines"})
    out.event({"type": "tool_call", "call_id": "rc1:code:1", "name": "read_file", "arguments": "{}",
               "preview": "notes.md", "parent_call_id": "rc1"})
    out.event({"type": "tool_result", "call_id": "rc1:code:1", "name": "read_file", "output": "x",
               "is_error": False, "parent_call_id": "rc1"})
    out.event({"type": "tool_result", "call_id": "rc1", "name": "run_code", "output": "x", "is_error": False})
    assert err.getvalue().splitlines() == ["→ run_code for name in names:  … 3 lines", "  → read_file notes.md",
                                           "  ✓ read_file", "✓ run_code"]
