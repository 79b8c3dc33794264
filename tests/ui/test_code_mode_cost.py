"""/cost counts what a run_code program did: each of its tool calls is an audit row, and a
model call made inside one (web_fetch's question) is a usage row of the workstream."""

from __future__ import annotations

import json

from app.settings.config import load_config
from app.permissions import audit
from app.tui.screens.cost import CostScreen
from app.storage.store import Store
from tests.fake_llm.script import TextReply, ToolCallReply
from tests.tools.web_site import LocalSite
from tests.ui.helpers import answer_approval, make_app, screen_is, submit, wait_for
from textual.widgets import DataTable

PROGRAM = """
for name in ("a.txt", "b.txt"):
    await tools.read_file(path=name)
print(await tools.web_fetch(url={url!r}, question="How far does the whimbrel fly?"))
"""


async def test_cost_counts_a_programs_calls_and_the_model_call_inside_it(fake_openai, tmp_path):
    config_path = tmp_path / "config.toml"
    config_path.write_text('[tools]\nmode = "code"\nweb_allow_networks = ["127.0.0.1/32"]\n')
    app = make_app(tmp_path, fake_openai.base_url, config=load_config(config_path))
    for name in ("a.txt", "b.txt"):
        (tmp_path / "ws" / name).write_text(f"{name}\n")
    with LocalSite() as site:
        program = PROGRAM.format(url=site.url("/docs"))
        fake_openai.queue(ToolCallReply([("run_code", json.dumps({"code": program}), "rc1")], usage=(100, 20)),
                          TextReply("About 5,000 km.", usage=(300, 9)),  # web_fetch's question, inside
                          TextReply("It flies 5,000 km.", usage=(150, 7)))
        async with app.run_test(size=(120, 40)) as pilot:
            await answer_approval(pilot, "how far does it fly?", "y")
            await wait_for(pilot, lambda: not app.workstream.busy and len(fake_openai.requests) == 3,
                           message="the turn")
            workstream_id = app.workstream.id
            await submit(pilot, "/cost")
            await wait_for(pilot, lambda: screen_is(app, CostScreen), message="the /cost screen")
            table = app.screen.query_one(DataTable)
            await wait_for(pilot, lambda: table.row_count == 1, message="the workstream's row")
            row = [str(cell) for cell in table.get_row_at(0)]
    assert row[1] == "3" and row[2] == "550" and row[3] == "36"  # requests, prompt, output: the inner one too
    assert row[6] == "4 (3 code)"  # run_code and its three calls
    store = Store(tmp_path / "data" / "whimbrel.db")
    try:
        usage = store.list_usage(workstream_id)
        rows = audit.query(store.engine, workstream=workstream_id)
    finally:
        store.close()
    assert [(u.prompt_tokens, u.completion_tokens) for u in usage] == [(100, 20), (300, 9), (150, 7)]
    assert [(r.call_id, r.tool, r.status) for r in rows] == [
        ("rc1:code:1", "read_file", "done"), ("rc1:code:2", "read_file", "done"),
        ("rc1:code:3", "web_fetch", "done"), ("rc1", "run_code", "done")]
