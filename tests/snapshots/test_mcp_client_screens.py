"""Snapshots of the modals MCP servers open (elicitation form and URL, sampling approval), plus Pilot
tests of what they return. Baselines in snapshots/test_mcp_client_screens/."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Checkbox, Input, Select, SelectionList

from app.mcp.features import ElicitationRequest, ElicitationResponse, SamplingRequest
from app.tui.screens.elicitation import ElicitationScreen
from app.tui.screens.sampling import SamplingScreen
from styles import STYLES_DIR
from tests.snapshots.screen_host import ScreenHost
from widgets.tool_card import ToolCard

SIZE = (110, 44)
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name", "description": "As on your passport", "maxLength": 40},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "birthdate": {"type": "string", "format": "date", "title": "Birth date"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 8, "default": 2},
        "newsletter": {"type": "boolean", "title": "Newsletter", "description": "Send me the monthly letter"},
        "room": {"type": "string", "title": "Room", "oneOf": [{"const": "s", "title": "Single"},
                                                             {"const": "d", "title": "Double"}], "default": "d"},
        "extras": {"type": "array", "title": "Extras", "minItems": 1, "maxItems": 2, "default": ["breakfast"],
                   "items": {"type": "string", "enum": ["breakfast", "parking", "late checkout"]}},
    },
    "required": ["name", "email", "room"],
}
FORM = ElicitationRequest(server="hotel", message="Please confirm the booking details.", schema=SCHEMA)
URL = ElicitationRequest(server="github", message="Authorize Whimbrel to read your repositories.", mode="url",
                         url="https://github.com/login/oauth/authorize?client_id=abc&state=xyz")
SAMPLING = SamplingRequest(
    server="everything", system_prompt="You are a helpful test server.", max_tokens=100, temperature=0.7,
    messages=[{"role": "user", "text": "Summarize the three files the user changed today in one sentence."},
              {"role": "assistant", "text": "They rename the config loader and add tests."},
              {"role": "user", "text": "Now in five words."}],
    model_hints=["claude-3-haiku"])


async def settle(pilot) -> None:
    await pilot.pause()
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause(0.1)


def test_elicitation_form(snap_compare) -> None:
    app = ScreenHost(ElicitationScreen(FORM, "booking trip"), animate=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_elicitation_form_with_errors(snap_compare) -> None:
    async def accept_empty(pilot) -> None:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause(0.1)

    assert snap_compare(ScreenHost(ElicitationScreen(FORM, "booking trip"), animate=False), terminal_size=SIZE,
                        run_before=accept_empty)


def test_elicitation_url(snap_compare) -> None:
    async def confirm_step(pilot) -> None:
        await settle(pilot)
        await pilot.click("#open")
        await pilot.pause(0.1)

    app = ScreenHost(ElicitationScreen(URL, "repo chores", opener=lambda url: True), animate=False)
    assert snap_compare(app, terminal_size=(110, 24), run_before=confirm_step)


def test_sampling_approval(snap_compare) -> None:
    app = ScreenHost(SamplingScreen(SAMPLING, "local (qwen2.5-coder:14b)", "refactor"), animate=False)
    assert snap_compare(app, terminal_size=(110, 34), run_before=settle)


def test_sampling_reply_written_by_hand_with_no_model(snap_compare) -> None:
    async def write(pilot) -> None:
        await settle(pilot)
        await pilot.press("w", *"A whimbrel is a curlew.")
        await pilot.pause()

    app = ScreenHost(SamplingScreen(SAMPLING, "", "refactor"), animate=False)
    assert snap_compare(app, terminal_size=(110, 34), run_before=write)


class CardsHost(App):
    """Tool cards as the transcript shows them, without the rest of the main screen."""

    CSS_PATH = STYLES_DIR / "tool_card.tcss"

    def compose(self):
        yield ToolCard("p1", "mcp__everything__trigger-long-running-operation", '{"duration": 10, "steps": 5}',
                       status="running")
        yield ToolCard("p2", "mcp__files__index", '{"root": "."}', status="running")
        yield ToolCard("p3", "mcp__files__sync", "{}", status="running")

    def on_mount(self) -> None:
        self.animation_level = "none"
        cards = list(self.query(ToolCard))
        cards[0].set_progress(1, 5, "warming up")
        cards[0].set_progress(3, 5, "step 3: copying files")  # replaces the first report
        cards[1].set_progress(120, None, "files indexed")
        cards[2].set_progress(4, 4, None)
        cards[2].set_status("done")
        cards[2].set_result("synced 4 files", is_error=False)  # the bar goes with the result


def test_mcp_tool_cards_with_progress(snap_compare) -> None:
    assert snap_compare(CardsHost(), terminal_size=(110, 22), run_before=settle)


async def test_form_accepts_typed_content_from_the_widgets() -> None:
    app = ScreenHost(ElicitationScreen(FORM, "booking trip"), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press(*"Ann Lee")  # the first field has focus
        screen.query_one("#field-1", Input).value = "ann@example.com"
        screen.query_one("#field-3", Input).value = "3"
        screen.query_one("#field-4", Checkbox).value = True
        screen.query_one("#field-5", Select).value = "s"
        extras = screen.query_one("#field-6", SelectionList)
        extras.select("parking")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.result == ElicitationResponse("accept", {
        "name": "Ann Lee", "email": "ann@example.com", "guests": 3, "newsletter": True, "room": "s",
        "extras": ["breakfast", "parking"]})


async def test_form_refuses_until_fixed_then_decline_and_cancel() -> None:
    app = ScreenHost(ElicitationScreen(FORM, "booking trip"), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#field-3", Input).value = "9"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen and app.result == "unset"
        errors = {str(w.content) for w in screen.query(".field-error.-shown")}
        assert errors == {"Full name is required", "Email is required", "Guests must be at most 8"}
        assert app.focused is screen.query_one("#field-0")  # the first wrong field
        await pilot.click("#decline")
        await pilot.pause()
    assert app.result == ElicitationResponse("decline")
    app = ScreenHost(ElicitationScreen(FORM), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
    assert app.result == ElicitationResponse("cancel")


async def test_url_mode_opens_only_after_confirming_and_sampling_keys() -> None:
    opened: list[str] = []
    app = ScreenHost(ElicitationScreen(URL, opener=opened.append), animate=False)
    async with app.run_test(size=(110, 24)) as pilot:
        await settle(pilot)
        await pilot.click("#open")
        await pilot.pause()
        assert opened == []
        await pilot.click("#confirm-open")
        for _ in range(40):
            if opened:
                break
            await pilot.pause(0.05)
        assert opened == [URL.url]
        await pilot.click("#accept")
        await pilot.pause()
    assert app.result == ElicitationResponse("accept")
    for key, approved in (("y", True), ("n", False), ("escape", False)):
        app = ScreenHost(SamplingScreen(SAMPLING, "fake-model"), animate=False)
        async with app.run_test(size=(110, 34)) as pilot:
            await settle(pilot)
            await pilot.press(key)
            await pilot.pause()
        assert app.result is approved
