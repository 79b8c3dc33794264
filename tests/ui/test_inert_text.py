"""Hostile text never reaches the terminal: each source of outside text, rendered by the real app.

Every test drives the app against the fake model server (or a real hostile MCP server) and then walks
every widget on the screen (tests/ui/inert_helpers.py): no control character may be rendered, and the
hostile sequences must be shown as visible marks (`␛[2J`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.text import Text
from textual.content import Content
from textual.widgets._toast import Toast

from app.settings.config import load_config
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.mcp_inspector import McpInspectorScreen
from tests.fake_llm.script import ErrorReply, TextReply, ToolCallReply
from tests.hostile import mcp_server
from tests.hostile.mcp_server import CLEAR, HOSTILE, RETITLE
from tests.ui.helpers import answer_approval, make_app, screen_is, screen_text, submit, wait_for
from tests.ui.inert_helpers import SHOWN_MARKS, assert_inert, obeyable, rendered_by_widget
from widgets import terminal_guard
from widgets.messages import AssistantMessage, Notice, ReasoningBlock, UserMessage
from widgets.tab_bar import TabBar
from widgets.tool_card import ToolCard
from widgets.workstream_view import ViewTitle

SIZE = (120, 40)


def test_rich_text_and_textual_content_are_inert_once_installed():
    """Pins the two private tables widgets/terminal_guard.py extends (a Rich or Textual upgrade that
    renames one fails here)."""
    terminal_guard.install()
    assert Text("a\x1b[2Jb\x9b\x07").plain == "a␛[2Jb\ufffd␇"
    assert Content("\x1b]0;T\x07\u202e").plain == "␛]0;T␇\ufffd"
    assert Content.from_markup("[b]x\x1b[/b]").plain == "x␛"
    assert Text("line\r\nnext\ttab").plain == "line\nnext\ttab"  # CR still dropped, newline and tab kept


async def test_a_streamed_reply_and_its_reasoning_are_shown_inert(fake_openai, tmp_path):
    reply = (f"Reply {HOSTILE} end.\n\n```python\nprint('{HOSTILE}')\n```\n\n| a | b |\n|---|---|\n"
             f"| cell {CLEAR} | `code {RETITLE}` |\n\n- item **{CLEAR}**\n")
    fake_openai.queue(TextReply(reply, reasoning=f"Thinking {HOSTILE}", chunk_size=3))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "say something hostile")
        await wait_for(pilot, lambda: "item" in screen_text(app) and app.workstream.state == "idle")
        text = await assert_inert(pilot, *SHOWN_MARKS)
        for mark in ("Thinking ␛[2J", "[bold red]markup[/]", "print('␛[2J", "cell ␛[2J␛[H", "code ␛]0;PWNED␇",
                     "item ␛[2J␛[H"):
            assert mark in text, mark
        assert app.workstream.session.messages[-1].content == reply  # stored and sent on unchanged


async def test_bash_output_streams_inert_and_the_model_gets_the_real_bytes(fake_openai, tmp_path):
    command = "printf 'out \\033[2J\\033[H \\033]0;PWNED\\007 \\302\\233 done'"
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": command}), "b1")]), TextReply("Ran it."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await answer_approval(pilot, "run it", "y")
        await wait_for(pilot, lambda: "Ran it." in screen_text(app), message="final answer")
        await assert_inert(pilot, "out ␛[2J␛[H ␛]0;PWNED␇ \ufffd done")
        sent = fake_openai.requests[1]["messages"][-1]["content"]
        assert "\x1b[2J\x1b[H \x1b]0;PWNED\x07 \x9b done" in sent  # the model sees what the command printed


async def test_the_approval_dialog_shows_a_hostile_command_inert(fake_openai, tmp_path):
    command = f"echo {HOSTILE}"
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": command}), "b1")]), TextReply("Denied."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "run it")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval")
        await assert_inert(pilot, "echo ␛[2J␛[H", "\ufffdtxt.exe", "⚠ contains control characters")
        await pilot.press("n")
        await wait_for(pilot, lambda: "Denied." in screen_text(app))


async def test_a_hostile_file_write_shows_its_diff_inert(fake_openai, tmp_path):
    content = f"line one\n{HOSTILE}\n"
    fake_openai.queue(ToolCallReply([("write_file", json.dumps({"path": f"out{CLEAR}.txt", "content": content}),
                                      "w1")]), TextReply("Written."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write it")
        await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval")
        await assert_inert(pilot, "+␛[2J␛[H␛]0;PWNED␇", "out␛[2J␛[H.txt")
        await pilot.press("y")
        await wait_for(pilot, lambda: "Written." in screen_text(app))
        assert (tmp_path / "ws" / f"out{CLEAR}.txt").read_text() == content  # written as the model sent it


async def test_a_hostile_file_read_without_approval_is_shown_inert(fake_openai, tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text(f"first line\r\n{HOSTILE}\r\nlast line\r\n")
    fake_openai.queue(ToolCallReply([("read_file", json.dumps({"path": "notes.txt"}), "r1")]), TextReply("Read."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "read notes.txt")
        await wait_for(pilot, lambda: "Read." in screen_text(app), message="final answer")
        assert not isinstance(app.screen, ApprovalScreen)
        await assert_inert(pilot, *SHOWN_MARKS)
        assert HOSTILE in fake_openai.requests[1]["messages"][-1]["content"]


async def test_a_provider_error_message_is_shown_inert(fake_openai, tmp_path):
    fake_openai.queue(ErrorReply(400, f"bad request {HOSTILE}"))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "fail please")
        await wait_for(pilot, lambda: "bad request" in screen_text(app), message="the error notice")
        await assert_inert(pilot, *SHOWN_MARKS)


async def test_stored_history_is_shown_inert_when_resumed(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": f"echo {HOSTILE}"}), "b1")],
                                    text=f"Calling {HOSTILE}"),
                      TextReply(f"History {HOSTILE}", reasoning=f"Old thoughts {HOSTILE}"))
    first = make_app(tmp_path, fake_openai.base_url)
    async with first.run_test(size=SIZE) as pilot:
        await submit(pilot, f"user said {HOSTILE}")
        await wait_for(pilot, lambda: screen_is(first, ApprovalScreen), message="approval")
        await pilot.press("y")
        await wait_for(pilot, lambda: "History" in screen_text(first) and first.workstream.state == "idle")
        workstream_id = first.workstream.id
    second = make_app(tmp_path, fake_openai.base_url, resume=workstream_id[:8])
    async with second.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "History" in screen_text(second), message="history shown")
        text = await assert_inert(pilot, *SHOWN_MARKS)
        assert "user said ␛[2J" in text and "Old thoughts ␛[2J" in text and "Calling ␛[2J" in text
        [card] = second.screen.query(ToolCard)
        assert card.tool_name == "bash"


async def test_a_model_made_title_is_inert_and_not_markup(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Hello."), TextReply("[u]T[/]\x1b]0;PWNED\x07"))
    app = make_app(tmp_path, fake_openai.base_url, auto_title=True)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "PWNED" in app.workstream.name, message="the auto-title")
        await pilot.pause()
        await assert_inert(pilot, "[u]T[/]␛]0;PWNED␇")


def hostile_mcp_app(tmp_path: Path, fake_openai, behaviour: str = "escapes"):
    config_path = tmp_path / "config.toml"
    config_path.write_text(f'[mcp.servers.hostile]\ncommand = "{sys.executable}"\n'
                           f'args = ["{mcp_server.__file__}", "{behaviour}"]\n')
    return make_app(tmp_path, fake_openai.base_url, config=load_config(config_path))


async def test_a_hostile_mcp_server_is_shown_inert_in_the_transcript_and_the_inspector(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([("mcp__hostile__shout", "{}", "m1")]), TextReply("Shouted."))
    app = hostile_mcp_app(tmp_path, fake_openai)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await wait_for(pilot, lambda: app.mcp.manager.status("hostile")[0] == "ready", timeout=60, message="server ready")
        await answer_approval(pilot, "shout", "y")
        await wait_for(pilot, lambda: "Shouted." in screen_text(app), timeout=30, message="final answer")
        await assert_inert(pilot, "result ␛[2J␛[H")
        assert "result \x1b[2J" in fake_openai.requests[1]["messages"][-1]["content"]
        descriptions = [t["function"]["description"] for t in fake_openai.requests[0]["tools"]]
        assert any(HOSTILE in d for d in descriptions)  # the model gets the server's words unchanged
        await pilot.press("f9")
        await wait_for(pilot, lambda: screen_is(app, McpInspectorScreen), message="the inspector")
        tabs = app.screen.query_one("#mcp-tabs")
        shown = ""
        for tab in ("tab-overview", "tab-tools", "tab-protocol", "tab-logs"):
            tabs.active = tab
            await pilot.pause()
            shown += await assert_inert(pilot)
        for mark in ("hostile␛]0;PWNED␇", "Instructions ␛[2J", "␛]52;c;cm", "evil␛[2J␛[Hname", "stderr ␛[2J"):
            assert mark in shown, mark


async def test_after_a_hostile_session_no_widget_renders_a_control_character(fake_openai, tmp_path):
    """The walk: a session where the model, a command, the provider and an MCP server all send hostile
    text, in two split panes; every widget that shows outside text shows the marks, none a control."""
    fake_openai.queue(TextReply(f"Reply {HOSTILE}", reasoning=f"Thinking {HOSTILE}"),
                      TextReply("[u]T[/]\x1b]0;PWNED\x07"))  # the auto-title
    app = hostile_mcp_app(tmp_path, fake_openai, "crash")
    app.options.auto_title = True
    async with app.run_test(size=(140, 50), notifications=True) as pilot:
        await wait_for(pilot, lambda: app.screen.query(Toast), timeout=60, message="the crashed server's toast")
        toasts = [text for widget, text in (await rendered_by_widget(pilot)).items() if isinstance(widget, Toast)]
        assert "MCP server “hostile” failed" in "".join(toasts) and not obeyable("".join(toasts))
        await submit(pilot, f"user {HOSTILE}")
        await wait_for(pilot, lambda: "PWNED" in app.workstream.name, message="reply and auto-title")
        fake_openai.queue(ToolCallReply([("bash", json.dumps({"command": "printf 'out \\033[2J\\033]0;X\\007'"}),
                                          "b1")]), TextReply("Ran."), ErrorReply(400, f"refused {HOSTILE}"))
        await answer_approval(pilot, "run it", "y")
        await wait_for(pilot, lambda: "Ran." in screen_text(app) and app.workstream.state == "idle")
        await submit(pilot, "again")
        await wait_for(pilot, lambda: "refused" in screen_text(app), message="the provider's error")
        await pilot.press("f3")  # a second pane: each view shows its title line
        await wait_for(pilot, lambda: len(app.main_screen.pane_area.views()) == 2, message="split")
        rendered = await rendered_by_widget(pilot)
        controls = {type(widget).__name__: obeyable(text) for widget, text in rendered.items() if obeyable(text)}
        assert not controls, f"control characters rendered by {controls}"

        def shown_by(kind: type, mark: str = "␛[2J␛[H␛]0;PWNED␇") -> bool:
            """`mark` is rendered by a `kind` widget or one inside it (wrapped lines joined)."""
            return any(mark in "".join(line.strip() for line in text.splitlines())
                       for widget, text in rendered.items()
                       if any(isinstance(node, kind) for node in widget.ancestors_with_self))

        for kind in (UserMessage, ReasoningBlock, AssistantMessage, Notice):
            assert shown_by(kind), f"{kind.__name__} does not show the marks"
        assert shown_by(ToolCard, "␛[2J␛]0;X␇")
        assert shown_by(TabBar, "[u]T[/]␛]0;PWNED␇") and shown_by(ViewTitle, "[u]T[/]␛]0;PWNED␇")


def test_a_desktop_notification_carries_no_sequence_of_the_title_it_names():
    """The notification is itself an escape sequence (OSC 9 / 777); a hostile title must not end it early."""
    from app.tui.comforts.attention import osc_notification

    sequence = osc_notification("Whimbrel", f"“{HOSTILE}” needs your approval")
    frames = ["\x1b]9;", "\x07", "\x1b]777;notify;", "\x07"]
    inner = sequence
    for frame in frames:
        before, found, inner = inner.partition(frame)
        assert found and not obeyable(before), (frame, before)
    assert "PWNED" in sequence and not inner
