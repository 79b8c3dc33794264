"""When the database cannot be opened the user is told why and chooses: retry, temporary store or quit."""

from __future__ import annotations

from app.tui.screens.storage_error import StorageErrorScreen
from tests.fake_llm.script import TextReply
from tests.ui.helpers import make_app, screen_is, screen_text, wait_for


def _block_data_dir(tmp_path):
    """A regular file where the data directory should be: opening the store fails even as root."""
    (tmp_path / "data").write_text("not a directory")


async def test_unopenable_store_explains_and_quits(tmp_path):
    _block_data_dir(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, StorageErrorScreen), message="storage error screen")
        text = screen_text(app)
        assert "cannot open its conversation store" in text
        assert str(tmp_path / "data" / "whimbrel.db") in text
        await pilot.press("q")
        await wait_for(pilot, lambda: app.return_code is not None, message="exit")
    assert app.return_code == 1


async def test_every_way_out_of_the_storage_error_exits_with_status_1(tmp_path):
    """q, Esc and Ctrl+Q (the app's quit key) agree: a script sees 1 whichever the user pressed."""
    _block_data_dir(tmp_path)
    for key in ("ctrl+q", "escape"):
        app = make_app(tmp_path)
        async with app.run_test(size=(110, 34)) as pilot:
            await wait_for(pilot, lambda: screen_is(app, StorageErrorScreen), message="storage error screen")
            assert "Quitting here exits with status 1." in screen_text(app)
            await pilot.press(key)
            await wait_for(pilot, lambda: app.return_code is not None, message="exit")
        assert app.return_code == 1, key


async def test_retry_after_fixing_the_cause_opens_the_real_store(tmp_path):
    _block_data_dir(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, StorageErrorScreen), message="storage error screen")
        (tmp_path / "data").unlink()  # the user fixes it, then retries
        await pilot.press("r")
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot after retry")
    assert (tmp_path / "data" / "whimbrel.db").exists()


async def test_temporary_store_keeps_the_app_usable(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Answer from a temporary session."))
    _block_data_dir(tmp_path)
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_for(pilot, lambda: screen_is(app, StorageErrorScreen), message="storage error screen")
        await pilot.press("t")
        await wait_for(pilot, lambda: app.ready.is_set(), message="boot with a temporary store")
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: "Answer from a temporary session." in screen_text(app), message="answer")
        temporary = app._temporary_data.name
        assert temporary and (tmp_path / "data").is_file()
