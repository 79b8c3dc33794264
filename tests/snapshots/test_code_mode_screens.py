"""Snapshots of code mode: a run_code card (the program highlighted, its calls nested with their
status, the output), and the main screen after /tools mode code (the status bar says so)."""

from __future__ import annotations

import json
from pathlib import Path

from textual.app import App

from app.engine import events as ev
from widgets.tool_card import ToolCard

STYLES_DIR = Path(__file__).resolve().parents[2] / "styles"
PROGRAM = '''hits = []
for name in ["app/db.py", "app/cli.py", "app/models.py"]:
    text = await tools.read_file(path=name)
    if "import sqlalchemy" in text:
        hits.append(name)
await tools.write_file(path="hits.txt", content="\\n".join(hits))
print("importing sqlalchemy:", ", ".join(hits))
'''


class CodeCardHost(App):
    CSS_PATH = STYLES_DIR / "tool_card.tcss"

    def compose(self):
        yield ToolCard("rc1", "run_code", PROGRAM.splitlines()[0], status="done",
                       arguments=json.dumps({"code": PROGRAM}))

    def on_mount(self) -> None:
        self.animation_level = "none"
        card = self.query_one(ToolCard)
        for n, path in enumerate(["app/db.py", "app/cli.py", "app/models.py"], start=1):
            card.add_code_event(ev.ToolCallAdded(f"rc1:code:{n}", "read_file", path, "{}"))
            card.add_code_event(ev.ToolCallUpdated(f"rc1:code:{n}", "done"))
        card.add_code_event(ev.ToolCallAdded("rc1:code:4", "write_file", "hits.txt", "{}"))
        card.add_code_event(ev.ToolCallUpdated("rc1:code:4", "denied", "refused"))
        card.add_code_event(ev.ToolResultReady("rc1:code:4", "Whimbrel's permission policy refused this call: "
                                               "plan mode is read-only.", True))
        card.set_result("Traceback (most recent call last):\n  File \"<program>\", line 6, in <module>\n"
                        "ToolCallError: Whimbrel's permission policy refused this call: plan mode is read-only.", True)
        card.set_status("error")


def test_a_run_code_card_shows_the_program_and_its_calls(snap_compare) -> None:
    assert snap_compare(CodeCardHost(), terminal_size=(110, 26))


def test_the_status_bar_in_code_mode(snap_compare, tmp_path, fake_openai) -> None:
    from tests.ui.helpers import make_app, screen_text, wait_for
    from tests.ui.helpers import submit
    from widgets.status_bar import StatusBar

    app = make_app(tmp_path, fake_openai.base_url)

    async def run_before(pilot) -> None:
        await submit(pilot, "/tools mode code")
        await wait_for(pilot, lambda: "Tool mode: code." in screen_text(app), message="the mode notice")
        bar = app.screen.query_one(StatusBar)  # its marker is painted on the next refresh: wait for it too
        await wait_for(pilot, lambda: "tools: code" in str(bar.describe()), message="the status bar's marker")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 20), run_before=run_before)
