"""The first frame before boot: the status bar from the config, the saved tabs' names.

Boot is held back (`_boot_started`), so what is on screen is what the app shows before the engine and
the store have loaded: the model, mode and context gauge come from the config, the tabs from a quick
read of the saved store. Once boot runs, the restored workspace takes their place.
"""

from __future__ import annotations

import time

from app.settings.config import load_config
from app.providers.models import ModelRegistry
from app.storage.leases import Owner
from app.storage.store import Store
from app.vocabulary.messages import Message
from tests.ui.helpers import booted, make_app, wait_for
from widgets.status_bar import StatusBar
from widgets.tab_bar import TabBar

ELSEWHERE = Owner("f" * 32, 4242, "other-host.example")
AHEAD = time.time() + 3600  # a heartbeat an hour ahead: the other window's lease stays live through the test


def saved_store(tmp_path, *, held: bool = False, focused_mode: str | None = None) -> list[str]:
    """Three saved tabs ("parser fix", "docs", "release"), the first two side by side with the second
    focused; with `held`, another window holds the third."""
    store = Store(tmp_path / "data" / "whimbrel.db", clock=lambda: AHEAD)
    try:
        ids = [store.create_workstream(title=title, model="fake-model") for title in ("parser fix", "docs", "release")]
        for workstream_id in ids:
            store.add_message(workstream_id, Message(role="user", content="Keep this."))
        store.set_app_state("tabs", ids)
        store.set_app_state("layout", {"dir": "horizontal", "a": {"ws": ids[0]}, "b": {"ws": ids[1]}})
        store.set_app_state("focused", ids[1])
        if focused_mode:
            store.set_config(ids[1], "policy_mode", focused_mode)
        if held:
            store.take_lease(ids[2], ELSEWHERE)
    finally:
        store.close()
    return ids


def configured_app(tmp_path):
    """An app with one model and `[policy] mode = "accept-edits"` from a real config file."""
    path = tmp_path / "config.toml"
    path.write_text('[model]\ndefault = "local"\n\n[models.local]\nbase_url = "http://127.0.0.1:9/v1"\n'
                    'api_key = "x"\nmodel = "fake-model"\ncontext_window = 32000\n\n[policy]\nmode = "accept-edits"\n')
    config = load_config(path)
    models = ModelRegistry.from_config(config)
    return make_app(tmp_path, settings=models.settings("local"), models=models, config=config)


def status_text(app) -> str:
    return app.main_screen.query_one(StatusBar).describe().plain


def tab_names(app) -> list[str]:
    return [tab.name for tab in app.main_screen.query_one(TabBar).tabs]


async def test_status_bar_shows_model_mode_and_gauge_before_boot(tmp_path):
    app = configured_app(tmp_path)
    app._boot_started = True  # boot held back: this is the frame before the engine loads
    async with app.run_test() as pilot:
        await pilot.pause()
        text = status_text(app)
        assert "fake-model" in text and "mode: accept-edits" in text and "0 / 32.0k" in text and "0%" in text
        assert app.manager is None and app.store is None


async def test_saved_tabs_are_named_before_boot_and_the_focused_tabs_mode_shown(tmp_path):
    saved_store(tmp_path, held=True, focused_mode="plan")
    app = configured_app(tmp_path)
    app._boot_started = True
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: tab_names(app), message="the saved tabs")
        assert tab_names(app) == ["parser fix", "docs"]  # "release" is open in another window: boot leaves it out
        assert app.main_screen.query_one(TabBar).active == 1
        assert "mode: plan" in status_text(app)  # the focused tab's own mode, as boot restores it


async def test_a_click_on_a_tab_before_boot_says_it_is_starting(tmp_path):
    saved_store(tmp_path)
    app = configured_app(tmp_path)
    app._boot_started = True
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: tab_names(app), message="the saved tabs")
        app.main_screen.query_one(TabBar).post_message(TabBar.Selected(0))
        await wait_for(pilot, lambda: any("Still starting up" in str(n.message) for n in app._notifications),
                       message="the starting-up notice")


async def test_boot_replaces_the_first_frame_with_the_restored_tabs(tmp_path):
    ids = saved_store(tmp_path)
    app = configured_app(tmp_path)
    async with app.run_test() as pilot:
        await booted(pilot)
        await wait_for(pilot, lambda: [w.id for w in app.manager] == ids, message="the restored tabs")
        assert tab_names(app) == ["parser fix", "docs", "release"]
        assert app.focused_id == ids[1] and "fake-model" in status_text(app)


async def test_no_saved_store_leaves_the_tab_bar_empty_until_boot(tmp_path):
    app = configured_app(tmp_path)
    app._boot_started = True
    async with app.run_test() as pilot:
        await pilot.pause(0.2)
        assert tab_names(app) == [] and "fake-model" in status_text(app)


async def test_ctrl_o_before_boot_says_it_is_starting_and_keeps_the_text(tmp_path):
    app = configured_app(tmp_path)
    app._boot_started = True
    async with app.run_test() as pilot:
        await pilot.press(*"draft", "ctrl+o")
        await wait_for(pilot, lambda: any("Still starting up" in str(n.message) for n in app._notifications),
                       message="the starting-up notice")
        assert app.focused.id == "boot-prompt" and app.focused.text == "draft"


async def test_boot_starts_once_the_saved_tabs_and_the_footer_are_on_screen(tmp_path, monkeypatch):
    """Boot's imports on a thread would slow the first frame's last pieces: it waits for them (the
    fallback timer is pushed out of reach here, so only the painted pieces can start it)."""
    import app.tui.app

    monkeypatch.setattr(app.tui.app, "BOOT_AT_THE_LATEST", 600.0)
    saved_store(tmp_path)
    whimbrel = configured_app(tmp_path)
    seen_at_boot: list[list[str]] = []
    start_boot = whimbrel.start_boot

    def recording_start_boot() -> None:
        if not whimbrel._boot_started:
            seen_at_boot.append(tab_names(whimbrel))
        start_boot()

    whimbrel.start_boot = recording_start_boot
    async with whimbrel.run_test() as pilot:
        await booted(pilot)
        assert seen_at_boot == [["parser fix", "docs", "release"]]


async def test_the_tabs_the_cli_read_while_textual_loaded_are_shown_at_mount(tmp_path):
    """The CLI starts reading the saved tabs before Textual is imported (`options.saved_tabs`, a future):
    read by then, they are on the tab bar when the main screen mounts, so the first frame has them;
    still being read, they follow once the read is done. (No store is on disk here: what is shown
    can only come from the CLI's read.)"""
    from concurrent.futures import Future

    from app.storage.peek import SavedTabs

    read = Future()
    read.set_result(SavedTabs(["read by the cli", "while textual loaded"], focused=1))
    app = configured_app(tmp_path)
    app.options.saved_tabs = read
    app._boot_started = True
    async with app.run_test():
        assert tab_names(app) == ["read by the cli", "while textual loaded"]  # no wait: there at mount
        assert app.main_screen.query_one(TabBar).active == 1

    reading = Future()
    app = configured_app(tmp_path)
    app.options.saved_tabs = reading
    app._boot_started = True
    async with app.run_test() as pilot:
        assert tab_names(app) == []
        reading.set_result(SavedTabs(["read a moment later"]))
        await wait_for(pilot, lambda: tab_names(app) == ["read a moment later"], message="the tabs once read")
