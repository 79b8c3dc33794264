"""Snapshots of the status bar while a backend's circuit breaker is open (counting down), once
its cooldown is over, and while the screen is still drawing an ended reply (baselines in
snapshots/test_status_bar_breaker/)."""

from __future__ import annotations

from types import SimpleNamespace

from textual.app import App, ComposeResult

from widgets.status_bar import StatusBar

BACKEND = "openai:http://127.0.0.1:8000/v1"


class Host(App):
    """Just the status bar, showing a workstream's facts (what StatusBar.show reads), its breaker
    as (backend, state, seconds until a retry)."""

    CSS = "StatusBar { dock: bottom; height: 1; }"

    def __init__(self, breaker: tuple[str, str, float] | None, state: str = "error", drawing: int = 0) -> None:
        super().__init__()
        self.drawing = drawing
        self.facts = SimpleNamespace(model="qwen2.5-coder:14b", state=state, tokens=1840, context_window=32768,
                                     cost=None, cost_estimated=False, breaker_view=lambda: breaker)

    def compose(self) -> ComposeResult:
        yield StatusBar()

    def on_mount(self) -> None:
        self.query_one(StatusBar).drawing = self.drawing
        self.query_one(StatusBar).show(self.facts)


def test_open_breaker_counts_down(snap_compare):
    assert snap_compare(Host((BACKEND, "open", 12.0)), terminal_size=(120, 3))


def test_breaker_after_its_cooldown(snap_compare):
    assert snap_compare(Host((BACKEND, "half-open", 0.0)), terminal_size=(120, 3))


def test_idle_while_the_screen_still_draws_an_ended_reply(snap_compare):
    assert snap_compare(Host(None, state="idle", drawing=3_240_000), terminal_size=(140, 3))
