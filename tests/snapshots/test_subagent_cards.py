"""Snapshots of a task card with two sub-agents nested in it: running (expanded) and collapsed."""

from __future__ import annotations

from pathlib import Path

import pytest

from textual.app import App

from tests.ui.helpers import screen_is
from app.engine import events as ev
from widgets.tool_card import ToolCard

STYLES_DIR = Path(__file__).resolve().parents[2] / "styles"


def feed(card: ToolCard) -> None:
    script = [
        ("task-1", ev.StateChanged("thinking")),
        ("task-1", ev.AssistantStarted()),
        ("task-1", ev.ContentDelta("Looking at the parser first.\nIt reads tokens one by one")),
        ("task-1", ev.ToolCallAdded("c1", "read_file", "app/parser.py", "{}")),
        ("task-1", ev.ToolCallUpdated("c1", "done")),
        ("task-1", ev.ToolCallAdded("c2", "search", "/def tokenize/ in .", "{}")),
        ("task-1", ev.ToolCallUpdated("c2", "running")),
        ("task-1", ev.StateChanged("running")),
        ("task-2", ev.StateChanged("thinking")),
        ("task-2", ev.ToolCallAdded("c3", "bash", "pytest -q tests/test_cli.py", "{}")),
        ("task-2", ev.ToolCallUpdated("c3", "pending")),
        ("task-2", ev.StateChanged("attention")),
    ]
    for agent, event in script:
        card.add_subagent_event(agent, event)


class TaskCardHost(App):
    CSS_PATH = STYLES_DIR / "tool_card.tcss"

    def __init__(self, collapsed: bool) -> None:
        super().__init__()
        self.collapsed = collapsed

    def compose(self):
        yield ToolCard("t1", "task", "find why the parser drops the last token", status="running",
                       collapsed=self.collapsed)
        yield ToolCard("t2", "task", "check the CLI tests", status="done", collapsed=True)

    def on_mount(self) -> None:
        self.animation_level = "none"
        feed(self.query(ToolCard).first())


def test_a_running_task_card_shows_its_sub_agents_nested(snap_compare) -> None:
    assert snap_compare(TaskCardHost(collapsed=False), terminal_size=(100, 22))


def test_a_collapsed_task_card_hides_them(snap_compare) -> None:
    assert snap_compare(TaskCardHost(collapsed=True), terminal_size=(100, 10))


def test_the_plan_review(snap_compare, tmp_path, fake_openai) -> None:
    """The review step after a plan sub-agent: the plan, where it was saved, accept or reject with notes."""
    import json

    from app.tui.screens.approval import ApprovalScreen
    from tests.fake_llm.script import TextReply, ToolCallReply
    from tests.ui.helpers import answer_approval, make_app, screen_text, wait_for
    from widgets.prompt import PromptInput

    fake_openai.queue(ToolCallReply([("plan", json.dumps({"prompt": "add a --verbose flag"}), "p1")]),
                      TextReply("## Plan\n1. Add `--verbose` to the parser in app/cli.py\n2. Log at INFO when set\n"
                                "3. Test it in tests/test_cli.py"), TextReply("ok"))
    app = make_app(tmp_path, fake_openai.base_url)

    async def run_before(pilot) -> None:
        await answer_approval(pilot, "plan the flag", "y")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "plan review" in screen_text(app),
                       message="the plan review")
        for prompt in app.query(PromptInput):
            prompt.cursor_blink = False  # no blink phase in the picture
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(110, 34), run_before=run_before)


def test_a_sub_agent_watched_in_its_own_pane(snap_compare, tmp_path, fake_openai) -> None:
    """/subagent: the task's whole log (its prompt, its approval, its bash call with output and result,
    its answer) in a split pane of its own beside the parent's."""
    import json

    from tests.fake_llm.script import TextReply, ToolCallReply
    from tests.ui.helpers import make_app, screen_text, wait_for
    from tests.ui.helpers import submit
    from widgets.prompt import PromptInput
    from tests.ui.test_subagents_ui import approve_the_task_and_its_bash
    from widgets.subagent_pane import SubagentPane

    fake_openai.queue(ToolCallReply([("task", json.dumps({"prompt": "count the Python files"}), "t1")]),
                      ToolCallReply([("bash", json.dumps({"command": "printf 'a.py\\nb.py\\n' | wc -l"}), "b1")]),
                      TextReply("There are 2 Python files:\na.py and b.py."), TextReply("Two files."))
    app = make_app(tmp_path, fake_openai.base_url)

    async def run_before(pilot) -> None:
        await submit(pilot, "how many Python files?")
        await approve_the_task_and_its_bash(pilot, app)
        await wait_for(pilot, lambda: "Two files." in screen_text(app), message="the parent's answer")
        await submit(pilot, "/subagent task-1")
        area = app.main_screen.pane_area
        await wait_for(pilot, lambda: any(p.state == "finished" for p in area.query(SubagentPane)), message="pane")
        for prompt in app.query(PromptInput):
            prompt.cursor_blink = False
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(110, 40), run_before=run_before)
