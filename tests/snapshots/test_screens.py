"""Snapshot tests of every screen and state a user sees (baselines in snapshots/test_screens/)."""

from __future__ import annotations

import asyncio

from app.engine import events as ev
from app.tui.screens.approval import ApprovalScreen
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for
from tools.context import ToolContext
from widgets.prompt import PromptInput
from tools.preview import diff_for

SIZE = (110, 34)


async def booted(pilot) -> None:
    """Wait for the boot worker; a steady cursor keeps the screenshot deterministic."""
    await wait_for(pilot, lambda: pilot.app.ready.is_set(), message="boot")
    for prompt in pilot.app.main_screen.query(PromptInput):
        prompt.cursor_blink = False
    await pilot.pause()


def test_idle_main_screen(snap_compare, tmp_path):
    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=booted)


def test_no_model_setup_message(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await booted(pilot)
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "SetupScreen")
        await pilot.press("escape")  # the user skipped first-run setup
        await pilot.pause(0.2)

    assert snap_compare(make_app(tmp_path, None), terminal_size=SIZE, run_before=run_before)


def test_mid_turn_with_running_tool_card(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await booted(pilot)
        emit = pilot.app.workstream.session.emit  # through the workstream, as a real session does
        for event in [
            ev.StateChanged("thinking"),
            ev.UserMessageAdded("Run the tests and fix what fails."),
            ev.AssistantStarted(),
            ev.ReasoningDelta("The user wants the suite run first."),
            ev.ContentDelta("I'll run the **test suite** first:\n\n- `pytest -q`\n"),
            ev.AssistantFinished("I'll run the **test suite** first", "The user wants…", "tool_calls"),
            ev.ToolCallAdded("c1", "bash", "pytest -q", '{"command": "pytest -q"}'),
            ev.ToolCallUpdated("c1", "approved"),
            ev.StateChanged("running"),
            ev.ToolCallUpdated("c1", "running"),
            ev.ToolOutput("c1", "collected 12 items\n"),
            ev.ToolOutput("c1", "tests/test_app.py ........F...\n"),
            ev.UsageUpdated(5100, 230, 5330, 32000),
        ]:
            emit(event)
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_approval_modal_with_diff(snap_compare, tmp_path):
    app = make_app(tmp_path)

    async def run_before(pilot) -> None:
        await booted(pilot)
        workspace = tmp_path / "ws"
        (workspace / "greet.py").write_text("def greet(name):\n    return 'hi ' + name\n\nprint(greet('bob'))\n")
        ctx = ToolContext(workspace=workspace)
        args = {"path": "greet.py", "content": "def greet(name: str) -> str:\n    return f'Hello, {name}!'\n\n"
                "print(greet('bob'))\n"}
        item = ev.ApprovalItem("c1", "write_file", "greet.py", diff_for("write_file", args, ctx),
                               "writes a file")
        bash = ev.ApprovalItem("c2", "bash", "python greet.py", "", "runs a shell command")
        pilot.app.push_screen(ApprovalScreen([item, bash], "tidy greet.py"))
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(110, 40), run_before=run_before)


def gauge_app(tmp_path, used: int, cost: float):
    """The idle screen after a request that filled `used` of a 32k context and cost `cost` USD."""

    async def run_before(pilot) -> None:
        await booted(pilot)
        emit = pilot.app.workstream.session.emit
        emit(ev.UsageUpdated(used, 200, used + 200, 32000))
        emit(ev.UsageRecorded("fake-model", used, 200, 0, 0, cost, True, cost, used + 200))
        await pilot.pause(0.3)

    return run_before


def test_status_bar_gauge_at_10_percent(snap_compare, tmp_path):
    assert snap_compare(make_app(tmp_path), terminal_size=(110, 12), run_before=gauge_app(tmp_path, 3000, 0.0123))


def test_status_bar_gauge_at_90_percent(snap_compare, tmp_path):
    assert snap_compare(make_app(tmp_path), terminal_size=(110, 12), run_before=gauge_app(tmp_path, 28600, 1.25))


def test_storage_error_screen(snap_compare, tmp_path):
    """The database cannot be opened: the reason and the three ways out."""
    from app.tui.screens.storage_error import StorageErrorScreen

    (tmp_path / "data").write_text("not a directory")

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: screen_is(pilot.app, StorageErrorScreen)
                       and pilot.app.screen.query("#storage-error-reason"), message="storage error")
        pilot.app.screen.query_one("#storage-error-reason").update(
            "/home/user/.local/share/whimbrel/whimbrel.db\nOperationalError: unable to open database file")
        for prompt in pilot.app.main_screen.query(PromptInput):  # the boot prompt under the dialog
            prompt.cursor_blink = False
        await pilot.pause()

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_reply_block_past_the_plain_text_limit(snap_compare, tmp_path, monkeypatch):
    """A paragraph longer than PLAIN_CHARS goes on as plain text under a dim note; Markdown resumes
    at the next paragraph. (The limits are lowered so that the whole reply fits on screen.)"""
    import widgets.markdown_split as markdown_split

    monkeypatch.setattr(markdown_split, "PLAIN_CHARS", 500)
    monkeypatch.setattr(markdown_split, "PLAIN_CHUNK", 400)
    endless = " ".join(f"w{n}" for n in range(400))

    async def run_before(pilot) -> None:
        await booted(pilot)
        emit = pilot.app.workstream.session.emit
        text = f"Here is the *whole* log on one line:\n\n{endless}\n\nBack to **Markdown** after it."
        for event in [ev.UserMessageAdded("Print the log."), ev.AssistantStarted(), ev.ContentDelta(text),
                      ev.AssistantFinished(text, "", "stop")]:
            emit(event)
        await wait_for(pilot, lambda: "after it." in screen_text(pilot.app))
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_an_attached_image_as_half_blocks(snap_compare, tmp_path, monkeypatch):
    """Where no image protocol is spoken but colours are (a browser tab of `whimbrel serve`), the image
    is drawn as coloured half blocks above its caption."""
    from tests.ui.test_images import png
    from tests.ui.test_inline_images import stored_image_workstream

    monkeypatch.setenv("WHIMBREL_IMAGES", "blocks")
    resume = stored_image_workstream(tmp_path, png(tmp_path / "red.png"))

    async def run_before(pilot) -> None:
        await booted(pilot)
        await wait_for(pilot, lambda: "A red pixel." in screen_text(pilot.app), message="the stored turn")

    assert snap_compare(make_app(tmp_path, resume=resume), terminal_size=SIZE, run_before=run_before)
