"""A UserPromptSubmit hook's context reaches the model, but the transcript shows only what the user
typed, during the turn and after a restart (the app resumes the workstream from the real store)."""

from __future__ import annotations

import sys

from app.settings.config import load_config
from tests.fake_llm.script import TextReply
from tests.ui.helpers import make_app, screen_text, submit, wait_for

HOOK = '''import json, sys
json.load(sys.stdin)
print("Ticket ABC-123 is in progress.")
'''


def hooked_app(tmp_path, base_url, resume=None):
    script = tmp_path / "context.py"
    script.write_text(HOOK)
    config = tmp_path / "config.toml"
    config.write_text(f'[[hooks.UserPromptSubmit]]\nmatcher = ""\n[[hooks.UserPromptSubmit.hooks]]\n'
                      f'type = "command"\ncommand = "{sys.executable} {script}"\n')
    app = make_app(tmp_path, base_url, resume=resume, config=load_config(config))
    app.options.config_path = config  # the permission setup reads its hooks from there
    return app


async def test_the_transcript_shows_the_prompt_without_the_hooks_context(fake_openai, tmp_path):
    fake_openai.queue(TextReply("ABC-123 is the open one."))
    app = hooked_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "what is open?")
        await wait_for(pilot, lambda: "ABC-123 is the open one." in screen_text(app), message="the reply")
        assert "what is open?" in screen_text(app) and "Ticket ABC-123 is in progress." not in screen_text(app)
        workstream_id = app.workstream.id
    sent = [m for m in fake_openai.requests[0]["messages"] if m["role"] == "user"][-1]["content"]
    assert "Ticket ABC-123 is in progress." in sent

    again = hooked_app(tmp_path, fake_openai.base_url, resume=workstream_id)
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "ABC-123 is the open one." in screen_text(again), message="the history")
        assert "what is open?" in screen_text(again) and "Ticket ABC-123 is in progress." not in screen_text(again)
