"""Snapshot of /team: two live instances on one store, one streaming (fixed rows, no refresh, so no
clock on screen)."""

from __future__ import annotations

from app.storage.team import TeamInstance, TeamWorkstream
from app.tui.screens.team import TeamScreen
from tests.ui.helpers import booted, make_app

INSTANCES = [
    TeamInstance("a" * 32, "ann@laptop", "laptop", 3121, 0.4,
                 [TeamWorkstream("w1", "release notes", "idle")]),
    TeamInstance("b" * 32, "bob", "build-box.example", 4242, 3.2,
                 [TeamWorkstream("w2", "schema work", "streaming"), TeamWorkstream("w3", "flaky-ci", "approval"),
                  TeamWorkstream("w4", "quiet one", "idle")]),
]


def test_the_team_screen(snap_compare, tmp_path) -> None:
    async def run_before(pilot) -> None:
        await booted(pilot)

        async def load() -> list[TeamInstance]:
            return INSTANCES

        await pilot.app.push_screen(TeamScreen(load, own="a" * 32, refresh=None))
        await pilot.pause(0.3)

    assert snap_compare(make_app(tmp_path), terminal_size=(110, 24), run_before=run_before)
