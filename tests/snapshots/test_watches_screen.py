"""Snapshot of /watches with two active watches (fixed data, no clock on screen)."""

from __future__ import annotations

from app.tui.screens.watches import WatchesScreen
from tests.ui.helpers import booted, make_app

ROWS = [
    {"id": "a1", "workstream_id": "ws1", "name": "log-size", "command": "stat -c %s build.log", "interval": 10.0,
     "stop_on": None, "polls": 3, "max_polls": 100},
    {"id": "b2", "workstream_id": "ws2", "name": "pr-merged", "command": "gh pr view 42 --json state",
     "interval": 300.0, "stop_on": 'data["state"] == "MERGED"', "polls": 0, "max_polls": 100},
]


def test_the_watches_screen(snap_compare, tmp_path) -> None:
    async def run_before(pilot) -> None:
        await booted(pilot)

        async def cancel(_watch_id: str) -> None:
            return None

        await pilot.app.push_screen(WatchesScreen(ROWS, {"ws1": "build", "ws2": "review PR 42"}, cancel))
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=(110, 24), run_before=run_before)
