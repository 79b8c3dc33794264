"""Snapshot of the first frame before boot: the status bar's model, mode and context gauge
from the config and the saved tabs' names, while the engine and the store are still loading."""

from __future__ import annotations

from tests.ui.helpers import wait_for
from tests.ui.test_first_frame import configured_app, saved_store, tab_names
from widgets.prompt import PromptInput

SIZE = (110, 24)


def test_first_frame_before_boot(snap_compare, tmp_path):
    saved_store(tmp_path, focused_mode="plan")
    app = configured_app(tmp_path)
    app._boot_started = True  # boot held back: the frame a user sees before the engine has loaded

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: tab_names(app), message="the saved tabs")
        for prompt in app.query(PromptInput):
            prompt.cursor_blink = False
        await pilot.pause(0.2)
        assert app.manager is None

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
