"""Sub-agents in the app: two tasks nested in their cards, a sub-agent's approval marked with its
name, the plan review modal."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

from app.tui.screens.approval import ApprovalScreen
from tests.fake_llm.script import SlowReply, TextReply, ToolCallReply
from tests.ui.helpers import answer_approval, make_app, screen_is, screen_text, submit, wait_for


def task(call_id: str, prompt: str) -> tuple[str, str, str]:
    return ("task", json.dumps({"prompt": prompt}), call_id)


async def approve_all(pilot, app) -> None:
    while isinstance(app.screen, ApprovalScreen):
        await pilot.press("y")
        await pilot.pause(0.05)


async def test_two_tasks_run_nested_in_their_cards(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([task("t1", "investigate the parser"), task("t2", "investigate the CLI")]),
                      SlowReply("parser finding", delay=0.02), SlowReply("cli finding", delay=0.02),
                      TextReply("Both investigations are done."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 50)) as pilot:
        await submit(pilot, "two investigations")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="task approval")
        assert "investigate the parser" in screen_text(app) and "investigate the CLI" in screen_text(app)
        await approve_all(pilot, app)
        await wait_for(pilot, lambda: "Both investigations are done." in screen_text(app), message="final answer")
        transcript = app.main_screen.view_for(app.focused_id).transcript
        logs = {call: transcript.cards[call].subagents.agents for call in ("t1", "t2")}
        assert {name for agents in logs.values() for name in agents} == {"task-1", "task-2"}
        assert all(progress.state == "finished" for agents in logs.values() for progress in agents.values())
        text = screen_text(app)
        assert "task-1" in text and "task-2" in text and "[task-1]" in text


async def test_a_sub_agents_approval_names_it(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([task("t1", "count files")]),
                      ToolCallReply([("bash", json.dumps({"command": "ls | wc -l"}), "b1")]),
                      TextReply("there are some files"), TextReply("Done."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 50)) as pilot:
        await answer_approval(pilot, "count", "y")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "task-1 · bash" in screen_text(app),
                       message="the sub-agent's approval")
        await pilot.press("y")
        await wait_for(pilot, lambda: "Done." in screen_text(app), message="final answer")
        card = app.main_screen.view_for(app.focused_id).transcript.cards["t1"]
        assert card.subagents.agents["task-1"].calls["b1"][2] == "done"


async def test_the_plan_review_accepts_and_the_parent_goes_on(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([("plan", json.dumps({"prompt": "add --verbose"}), "p1")]),
                      TextReply("1. Add the flag in app/cli.py\n2. Test it"), TextReply("Implementing the plan."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 50)) as pilot:
        await answer_approval(pilot, "plan it", "y")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "plan review" in screen_text(app),
                       message="the plan review")
        assert "1. Add the flag in app/cli.py" in screen_text(app)
        keys = str(app.screen.query_one("#approval-keys").render())
        assert "always" not in keys and "override" not in keys and "deny with feedback" in keys
        await pilot.press("a", "exclamation_mark")  # mean nothing here: no rule dialog, nothing decided
        assert screen_is(app, ApprovalScreen) and not app.screen.decisions
        await pilot.press("y")
        await wait_for(pilot, lambda: "Implementing the plan." in screen_text(app), message="final answer")
        plans = list((tmp_path / "ws" / ".whimbrel" / "plans").glob("*.md"))
        assert len(plans) == 1 and "Add the flag" in plans[0].read_text()


def open_pane(app):
    """The sub-agent pane in the pane area, or None."""
    from widgets.subagent_pane import SubagentPane

    return next(iter(app.main_screen.pane_area.query_children(SubagentPane)), None)


def pane_text(app) -> str:
    """What the open sub-agent pane shows: its title, its log lines and the line being streamed."""
    pane = open_pane(app)
    if pane is None:
        return ""
    lines = ["".join(segment.text for segment in strip) for strip in pane.log.lines]
    return "\n".join([str(pane._title()), *lines, pane.partial])


BUILD_SCRIPT = ("echo building; while [ ! -f go ]; do sleep 0.05; done; echo built")


async def approve_the_task_and_its_bash(pilot, app) -> None:
    """The task's approval, then its sub-agent's bash call's (marked with the sub-agent's name)."""
    await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="task approval")
    await pilot.press("y")
    await wait_for(pilot, lambda: screen_is(app, ApprovalScreen) and "task-1 · bash" in screen_text(app),
                   message="the sub-agent's approval")
    await pilot.press("y")


@asynccontextmanager
async def a_build_watched(fake_openai, tmp_path, name: str = ""):
    """A task whose bash command runs until the test creates the file `go`, watched in its pane
    (`/subagent NAME`) once the command runs; yields (pilot, app, the parent's id)."""
    queue_the_build(fake_openai)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 50)) as pilot:
        await submit(pilot, "build it")
        await approve_the_task_and_its_bash(pilot, app)
        view = app.main_screen.view_for(app.focused_id)
        await wait_for(pilot, lambda: any(getattr(e, "text", "") == "building\n"
                                          for e in view.subagent_runs.events.get("task-1", [])),
                       message="the sub-agent's command running")
        await submit(pilot, f"/subagent {name}".strip())
        await wait_for(pilot, lambda: "building" in pane_text(app), message="the pane, replayed")
        yield pilot, app, app.focused_id


def queue_the_build(fake_openai) -> None:
    fake_openai.queue(ToolCallReply([task("t1", "watch the build")]),
                      ToolCallReply([("bash", json.dumps({"command": BUILD_SCRIPT}), "b1")]),
                      TextReply("The build finished fine."), TextReply("Done."))


async def test_a_running_sub_agent_is_watched_live_in_its_own_pane(fake_openai, tmp_path):
    """A task opened in a split pane of its own while it runs (a leaf of the
    layout beside its parent's); its approval, its command's output and later text arrive there."""
    async with a_build_watched(fake_openai, tmp_path) as (pilot, app, parent):
        assert app.layout_tree.leaves() == [parent, f"subagent:{parent}/task-1"]
        pane, view = open_pane(app), app.main_screen.view_for(parent)
        assert pane.region.x >= view.region.right - 1 and pane.region.width >= 55  # side by side, not inside
        assert app.focused_id == parent and app.screen.focused is view.prompt  # the prompt keeps the keyboard
        text = pane_text(app)
        assert "task-1  ● running  sub-agent" in text and "▸ watch the build" in text and "bash" in text
        assert "⚑ waiting for your approval: task-1 · bash" in text and "bash approved" in text
        assert "The build finished fine." not in text
        (tmp_path / "ws" / "go").write_text("")
        await wait_for(pilot, lambda: "The build finished fine." in pane_text(app), message="live text in the pane")
        await wait_for(pilot, lambda: "finished" in pane_text(app) and "built" in pane_text(app), message="finished")
        await wait_for(pilot, lambda: "Done." in screen_text(app), message="the parent's answer")
        await submit(pilot, "/subagent close")
        await wait_for(pilot, lambda: pane_text(app) == "", message="pane closed")
        assert app.layout_tree.leaves() == [parent]
        await submit(pilot, "/subagent task-9")
        await wait_for(pilot, lambda: "No sub-agent 'task-9' here (sub-agents: task-1)." in screen_text(app),
                       message="an unknown name said")


async def test_closing_the_pane_leaves_the_sub_agent_running(fake_openai, tmp_path):
    """F8 inside the sub-agent's pane closes the pane only: the task goes on, finishes, and its answer
    reaches the parent; opened again, the pane shows everything it did meanwhile."""
    async with a_build_watched(fake_openai, tmp_path, "task-1") as (pilot, app, parent):
        await pilot.press("f8")  # the prompt has the keyboard: the parent's is the only workstream pane
        await wait_for(pilot, lambda: any("only pane" in n.message for n in app._notifications),
                       message="F8 on the parent refused")
        assert open_pane(app) is not None
        open_pane(app).log.focus()
        await pilot.press("f8")
        await wait_for(pilot, lambda: open_pane(app) is None, message="the pane closed by F8 inside it")
        assert app.layout_tree.leaves() == [parent]
        (tmp_path / "ws" / "go").write_text("")
        await wait_for(pilot, lambda: "Done." in screen_text(app), message="the parent's answer")
        card = app.main_screen.view_for(parent).transcript.cards["t1"]
        assert card.subagents.agents["task-1"].state == "finished"
        await submit(pilot, "/subagent")
        await wait_for(pilot, lambda: "The build finished fine." in pane_text(app), message="reopened")
        assert "built" in pane_text(app) and "● finished" in pane_text(app)


async def test_closing_the_parent_tab_closes_its_sub_agent_panes(fake_openai, tmp_path):
    async with a_build_watched(fake_openai, tmp_path) as (pilot, app, parent):
        await app.workspace.close_workstream(app.manager.get(parent))
        await wait_for(pilot, lambda: open_pane(app) is None, message="its pane went with it")
        assert all(not leaf.startswith("subagent:") for leaf in app.layout_tree.leaves())
        (tmp_path / "ws" / "go").write_text("")
