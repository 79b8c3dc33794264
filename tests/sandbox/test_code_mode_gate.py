"""run_code's calls are judged like native ones: in plan mode a program's writes (a file tool or bash)
are refused exactly as the native calls would be, nothing is written, and each call's audit row says
which tool it called, with which arguments, and what was decided."""

from __future__ import annotations

import json

from tests.engine.harness import Recorder
from tests.engine.test_code_mode import code_place, run_code, start, tool_message  # noqa: F401 (fixture)
from tests.engine.test_permission_flow import audit_rows
from tests.fake_llm.script import TextReply

PROGRAM = """
for name, call in [("write", lambda: tools.write_file(path=".env", content="PWNED=1")),
                   ("bash", lambda: tools.bash(command="echo PWNED > made.txt")),
                   ("read", lambda: tools.read_file(path="notes.md"))]:
    try:
        print(name, (await call())[:40].strip())
    except ToolCallError as error:
        print(name, "refused:", str(error)[:60])
"""


async def test_plan_mode_refuses_a_programs_writes_and_the_audit_says_what_each_call_did(fake_openai, code_place):
    ws, _config, data = code_place
    (ws / ".env").write_text("KEY=original\n")
    (ws / "notes.md").write_text("plan notes\n")
    fake_openai.queue(run_code(PROGRAM), TextReply("Planned."))
    app, session = await start(fake_openai, code_place, Recorder(), saved={"policy_mode": "plan"})
    await session.run_turn("go")
    await app.stop()
    output = tool_message(fake_openai)["content"]
    assert "write refused:" in output and "bash refused:" in output and "plan notes" in output, output
    assert (ws / ".env").read_text() == "KEY=original\n" and not (ws / "made.txt").exists()
    rows = {r.tool: r for r in audit_rows(data) if r.call_id.startswith("rc1:code:")}
    assert (rows["write_file"].decision, rows["write_file"].mode) == ("refused", "plan")
    assert json.loads(rows["write_file"].arguments)["path"] == ".env"
    assert rows["bash"].decision == "refused" and "made.txt" in json.loads(rows["bash"].arguments)["command"]
    assert rows["read_file"].status == "done"
