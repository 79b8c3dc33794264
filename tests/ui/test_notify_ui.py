"""notify in the app: a desktop notification (OSC 9/777) is sent, the transcript says so (inert)."""

from __future__ import annotations

import json

from tests.fake_llm.script import TextReply, ToolCallReply
from tests.ui.helpers import make_app, screen_text, submit, wait_for


async def test_notify_sends_a_desktop_notification(fake_openai, tmp_path):
    fake_openai.queue(ToolCallReply([("notify", json.dumps({"message": "Tests are green\x1b]0;x\x07"}), "n1")]),
                      TextReply("Done."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "run the tests and tell me")
        await wait_for(pilot, lambda: "Done." in screen_text(app), message="answer")
        assert any("Tests are green" in s and s.startswith("\x1b]9;") for s in app.attention.sent)
        assert "Notification: Tests are green␛]0;x␇" in screen_text(app)
