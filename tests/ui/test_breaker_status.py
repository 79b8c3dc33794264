"""The circuit breaker as a user meets it: the status bar counts down, and Esc on the trial
request does not leave requests paused.

Against the hostile model server: "500 …" turns fail, "hang …" hangs, anything else is echoed.
"""

from __future__ import annotations

import re

from app.providers.base import ModelSettings
from app.providers.models import ModelRegistry
from tests.hostile.model_fixtures import hostile_model, hostile_model_session  # noqa: F401
from tests.ui.helpers import make_app, screen_text, submit, wait_for
from widgets.status_bar import StatusBar


def hostile_app(server, tmp_path, cooldown: float):
    settings = ModelSettings(model="hostile-model", base_url=server.base_url, api_key="x", alias="main",
                             context_window=32000)
    models = ModelRegistry({"main": settings}, default="main", breaker_cooldown=cooldown)
    return make_app(tmp_path, settings=settings, models=models)


def bar_text(app) -> str:
    return app.screen.query_one(StatusBar).describe().plain


def seconds_shown(app) -> int | None:
    found = re.search(r"circuit open, retry in (\d+)s", bar_text(app))
    return int(found.group(1)) if found else None


async def fail_three_turns(pilot) -> None:
    app = pilot.app
    for turn in range(1, 4):
        await submit(pilot, "500 please")
        await wait_for(pilot, lambda t=turn: app.workstream.turns == t and not app.workstream.busy,
                       message=f"failed turn {turn}")


async def test_the_status_bar_counts_down_while_the_circuit_is_open(hostile_model, tmp_path):
    app = hostile_app(hostile_model, tmp_path, cooldown=30)
    async with app.run_test(size=(150, 30)) as pilot:
        await fail_three_turns(pilot)
        await wait_for(pilot, lambda: seconds_shown(app) is not None, message="the breaker in the status bar")
        first = seconds_shown(app)
        assert 0 < first <= 30
        # no turn runs and nothing else changes: only the status bar's own timer can lower it
        await wait_for(pilot, lambda: (seconds_shown(app) or first) < first, timeout=10,
                       message=f"the countdown to go below {first}s")


async def test_esc_on_the_trial_request_does_not_pause_requests(hostile_model, tmp_path):
    app = hostile_app(hostile_model, tmp_path, cooldown=1)
    async with app.run_test(size=(150, 30)) as pilot:
        await fail_three_turns(pilot)
        await wait_for(pilot, lambda: "half-open: next request tries it" in bar_text(app),
                       message="the cooldown to end")
        await submit(pilot, "hang until Esc")
        await wait_for(pilot, lambda: hostile_model.hanging == 1, message="the trial request to hang")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.workstream.busy, message="the turn to be cancelled")
        first_tab = app.focused_id
        await pilot.press("ctrl+n")  # the next request comes from another tab on the same backend
        await wait_for(pilot, lambda: app.focused_id != first_tab, message="a second tab")
        await submit(pilot, "hello after the trial")
        await wait_for(pilot, lambda: "You said: hello after the trial" in screen_text(app),
                       message="the next turn's reply")
        assert "requests are paused" not in screen_text(app)
        await wait_for(pilot, lambda: "circuit" not in bar_text(app), message="the breaker to close")
        await pilot.press("ctrl+pageup")
        await wait_for(pilot, lambda: app.focused_id == first_tab, message="back in the first tab")
        assert "circuit" not in bar_text(app)  # the breaker is shared: this tab sees it closed too
