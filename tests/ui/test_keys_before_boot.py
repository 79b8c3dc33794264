"""Keys typed at any moment after start reach the prompt in order, none lost or doubled.

The terminal is read before the first screen has mounted and long before boot has opened the store:
keys that come before anything has focus are held (app/tui/lifecycle/early_keys.py), keys typed during boot go to
the boot prompt, and boot hands what it holds to the restored workstream's prompt.
"""

from __future__ import annotations

from textual import events

from app.tui.app import WhimbrelApp
from tests.e2e.stored import only_conversation
from tests.fake_llm.script import TextReply
from tests.ui.helpers import booted, burst, make_app, screen_text, wait_for


class TypedAtOnce(WhimbrelApp):
    """Keys queued on the app before its first screen exists, as a terminal read at once delivers them."""

    typed = ""

    def on_load(self) -> None:
        super().on_load()
        for char in self.typed:
            self.post_message(events.Key(char, char))


def focused_text(app) -> str:
    return getattr(app.focused, "text", "")


def typed_at_once(tmp_path, text: str, base_url: str = "http://127.0.0.1:9/v1") -> TypedAtOnce:
    options = make_app(tmp_path, base_url).options
    app = TypedAtOnce(options)
    app.typed, app.animation_level = text, "none"
    return app


async def test_keys_queued_before_the_first_screen_reach_the_boot_prompt(tmp_path):
    app = typed_at_once(tmp_path, "queued before any screen")
    app._boot_started = True  # boot held back: the first frame stays up
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: focused_text(app) == "queued before any screen",
                       message="every early key in the boot prompt")
        assert app.focused.id == "boot-prompt" and app.manager is None


async def test_keys_typed_all_through_boot_arrive_in_order(tmp_path):
    app = typed_at_once(tmp_path, "early ")
    app._boot_started = True
    during = iter("typed while booting, " * 20)
    typed = "early "
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: focused_text(app) == typed, message="the early keys")
        app._boot_started = False
        app.start_boot()
        while not app.ready.is_set():  # a few keys on every turn of the loop, through the hand-over
            chars = "".join(char for char, _ in zip(during, range(3)))
            if not chars:
                break
            burst(app, *chars)
            typed += chars
            await pilot.pause()
        await booted(pilot)
        burst(app, *"after")
        typed += "after"
        await wait_for(pilot, lambda: focused_text(app) == typed, message=f"{typed!r} in the prompt")
        assert app.focused is app.main_screen.view_for(app.focused_id).prompt
        assert not app.main_screen.query("#boot-prompt")


async def test_a_prompt_sent_before_the_first_screen_runs_once_booted(fake_openai, tmp_path):
    fake_openai.queue(TextReply("Heard you early."))
    app = typed_at_once(tmp_path, "hi there", fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: focused_text(app) == "hi there", message="the early keys")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Heard you early." in screen_text(app), message="the reply")
        await booted(pilot)
        await wait_for(pilot, lambda: app.workstream.state == "idle", message="the turn's end")
    _, messages = only_conversation(tmp_path / "data" / "whimbrel.db")
    assert [m.content for m in messages if m.role == "user"] == ["hi there"]
