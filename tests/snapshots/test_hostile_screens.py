"""Snapshots of hostile text rendered inert: escape sequences, C1 controls and bidi overrides shown as marks.

Baselines in snapshots/test_hostile_screens/. The reply, reasoning, tool output and notice below carry
what a hostile model, command or server sends (clear screen, retitle, clipboard write, a C1 CSI, an RTL
override); on screen each shows as `␛[2J`, `␛]0;PWNED␇`, `�`.
"""

from __future__ import annotations

from app.engine import events as ev
from app.tui.screens.approval import ApprovalScreen
from tests.hostile.mcp_server import HOSTILE
from tests.snapshots.test_screens import booted
from tests.ui.helpers import make_app

SIZE = (110, 34)


def test_hostile_reply_tool_output_and_notice_are_inert(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await booted(pilot)
        emit = pilot.app.workstream.session.emit
        for event in [
            ev.UserMessageAdded("Show me notes.txt"),
            ev.AssistantStarted(),
            ev.ReasoningDelta(f"Reading it {HOSTILE}"),
            ev.ContentDelta(f"The file says:\n\n{HOSTILE}\n"),
            ev.AssistantFinished(f"The file says: {HOSTILE}", f"Reading it {HOSTILE}", "tool_calls"),
            ev.ToolCallAdded("c1", "bash", f"cat notes.txt {HOSTILE}", '{}'),
            ev.ToolCallUpdated("c1", "running"),
            ev.ToolOutput("c1", f"line 1\n{HOSTILE}\nline 3\n"),
            ev.ToolResultReady("c1", f"line 1\n{HOSTILE}\nline 3\n", False),
            ev.ToolCallUpdated("c1", "done"),
            ev.Notice(f"Provider error: {HOSTILE}", "error"),
        ]:
            emit(event)
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_approval_shows_a_bidi_disguised_command(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await booted(pilot)
        command = "cp report.pdf /tmp/\u202efdp.exe\u202c && echo \x1b[8mhidden\x1b[0m"
        item = ev.ApprovalItem("c1", "bash", command, "", "runs a shell command")
        pilot.app.push_screen(ApprovalScreen([item], f"[reverse]title[/] \x1b]0;PWNED\x07"))
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)
