"""Snapshot of a bash card cancelled with Esc: its output so far stays, under the cancellation note
(baseline in snapshots/test_cancelled_tool_card/)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from app.engine.session import cancelled_result
from widgets.tool_card import ToolCard

STYLES_DIR = Path(__file__).resolve().parents[2] / "styles"


class CardHost(App):
    """One tool card as the transcript shows it."""

    CSS_PATH = STYLES_DIR / "tool_card.tcss"

    def compose(self):
        yield ToolCard("b1", "bash", "make -j4 && ./run-tests", status="running")

    def on_mount(self) -> None:
        self.animation_level = "none"
        card = self.query_one(ToolCard)
        card.append_output("compiling module one\ncompiling module two\n")
        card.set_status("error")
        card.set_result(cancelled_result("compiling module one\ncompiling module two\nlinking"), is_error=True)


def test_a_cancelled_bash_card_keeps_its_output(snap_compare) -> None:
    assert snap_compare(CardHost(), terminal_size=(100, 12))
