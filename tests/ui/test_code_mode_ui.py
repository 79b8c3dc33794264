"""Code mode as a user meets it: /tools mode code, one run_code card with its 30 nested reads, the
model's next request carrying one line; Esc stops a long program at once."""

from __future__ import annotations

import json

from tests.engine.test_code_mode import READ_30
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import make_app, screen_text, submit, wait_for
from widgets.code_program import CodeProgram
from widgets.status_bar import StatusBar
from widgets.tool_card import ToolCard


def write_modules(workspace) -> None:
    for i in range(30):
        body = ("import sqlalchemy\n" if i in (3, 17) else "import os\n") + "x = 1\n" * 200
        (workspace / f"mod_{i:02d}.py").write_text(body)


async def test_thirty_reads_in_one_card_and_one_line_back(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    write_modules(tmp_path / "ws")
    fake_openai.queue(ToolCallReply([("run_code", json.dumps({"code": READ_30}), "rc1")]),
                      TextReply("mod_03.py and mod_17.py import sqlalchemy."))
    async with app.run_test(size=(120, 50)) as pilot:
        await submit(pilot, "/tools mode code")
        await wait_for(pilot, lambda: "Tool mode: code." in screen_text(app), message="the mode notice")
        assert "tools: code" in str(app.screen.query_one(StatusBar).describe())
        await submit(pilot, "which modules import sqlalchemy?")
        await wait_for(pilot, lambda: not app.workstream.busy and len(fake_openai.requests) == 2, message="the turn")
        card = app.screen.query_one(ToolCard)
        program = card.query_one(CodeProgram)
        await wait_for(pilot, lambda: len(program.calls) == 30, message="30 nested calls")
        assert {row[0] for row in program.calls.values()} == {"read_file"}
        assert {row[2] for row in program.calls.values()} == {"done"}
        assert "30 tool calls from the program" in str(program.rendered().renderables[-1])
    request = fake_openai.requests[1]
    assert [t["function"]["name"] for t in request["tools"]] == ["run_code"]
    [tool] = [m for m in request["messages"] if m["role"] == "tool"]
    assert tool["content"] == "modules importing sqlalchemy: mod_03.py, mod_17.py"


async def test_esc_stops_a_long_program_and_its_process(fake_openai, tmp_path):
    app = make_app(tmp_path, fake_openai.base_url)
    program = "print('started', flush=True)\nwhile True:\n    pass\n"
    fake_openai.queue(ToolCallReply([("run_code", json.dumps({"code": program, "timeout": 600}), "rc1")]))
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "/tools mode code")
        await submit(pilot, "spin")
        await wait_for(pilot, lambda: "started" in screen_text(app), message="the program's output")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.workstream.busy, message="the cancelled turn")
        await wait_for(pilot, lambda: "cancelled this call" in screen_text(app), message="the result on the card")
        assert app.screen.query_one(ToolCard).status == "error"
