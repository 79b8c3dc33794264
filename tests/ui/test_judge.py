"""The judge in the app: `[policy] judge = "alias"` asks a model (the fake server, over the real SDK)
for a second opinion when the modal opens; it joins the modal when it arrives, never holds the answer
up, and a timeout or an error is shown as such."""

from __future__ import annotations

import json
import socket
from contextlib import contextmanager

from app.providers.base import ModelSettings
from app.providers.models import ModelRegistry
from app.tui.screens.approval import ApprovalScreen
from tests.fake_llm.script import ErrorReply, TextReply, ToolCallReply
from tests.ui.helpers import make_app, screen_is, screen_text, submit, wait_for
from widgets.judge_line import JudgeLine


def judged_app(tmp_path, main_url: str, judge_url: str, timeout: float = 30.0):
    """An app whose config names the model alias "reviewer" as the judge."""
    main = ModelSettings(model="fake-model", base_url=main_url, api_key="x", alias="main", context_window=32000)
    reviewer = ModelSettings(model="fake-judge", base_url=judge_url, api_key="x", alias="reviewer",
                             context_window=32000)
    config = tmp_path / "config.toml"
    config.write_text(f'[policy]\njudge = "reviewer"\njudge_timeout = {timeout}\n')
    app = make_app(tmp_path, settings=main, models=ModelRegistry({"main": main, "reviewer": reviewer}, default="main"))
    app.options.config_path = config
    return app


@contextmanager
def silent_judge():
    """The URL of a judge that accepts the connection and never answers (closed on leaving)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        yield f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
    finally:
        silent.close()


def rm_call() -> ToolCallReply:
    return ToolCallReply([("bash", json.dumps({"command": "rm -rf build"}), "j1")])


def judge_line(pilot) -> JudgeLine | None:
    """The open approval modal's judge line, once the modal has mounted it."""
    screen = pilot.app.screen
    lines = list(screen.query(JudgeLine)) if isinstance(screen, ApprovalScreen) else []
    return lines[0] if lines else None


async def opinion_of(pilot):
    await wait_for(pilot, lambda: judge_line(pilot) is not None, message="the approval modal's judge line")
    line = judge_line(pilot)
    await wait_for(pilot, lambda: line.opinion is not None, 30, message="the judge's verdict")
    return line.opinion


async def test_the_verdict_joins_the_open_modal(fake_openai, tmp_path):
    fake_openai.queue(rm_call(), TextReply("DANGEROUS: deletes the build directory recursively"), TextReply("ok"))
    app = judged_app(tmp_path, fake_openai.base_url, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "clean up")
        opinion = await opinion_of(pilot)
        assert (opinion.verdict, opinion.reason) == ("dangerous", "deletes the build directory recursively")
        assert "judge (reviewer): DANGEROUS — deletes the build directory recursively" in screen_text(app)
        asked = fake_openai.requests[1]
        assert asked["model"] == "fake-judge" and "rm -rf build" in asked["messages"][-1]["content"]
        await pilot.press("n")
        await wait_for(pilot, lambda: app.workstream.turns == 1, message="the turn ends")
    assert "denied" in [m for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"][0]["content"]


async def test_answering_does_not_wait_for_the_judge(fake_openai, tmp_path):
    fake_openai.queue(rm_call(), TextReply("ok"))
    with silent_judge() as judge_url:
        app = judged_app(tmp_path, fake_openai.base_url, judge_url)
        async with app.run_test(size=(120, 40)) as pilot:
            await submit(pilot, "clean up")
            await wait_for(pilot, lambda: screen_is(app, ApprovalScreen), message="approval modal")
            assert "asking for a second opinion…" in screen_text(app)
            await pilot.press("y")
            await wait_for(pilot, lambda: app.workstream.turns == 1, message="the turn ends while the judge is silent")


async def test_a_judge_that_times_out_says_so(fake_openai, tmp_path):
    fake_openai.queue(rm_call(), TextReply("ok"))
    with silent_judge() as judge_url:
        app = judged_app(tmp_path, fake_openai.base_url, judge_url, timeout=0.5)
        async with app.run_test(size=(120, 40)) as pilot:
            await submit(pilot, "clean up")
            opinion = await opinion_of(pilot)
            assert opinion.verdict == "timeout"
            assert "judge (reviewer): timed out (no answer within 0.5s)" in screen_text(app)
            await pilot.press("n")
            await wait_for(pilot, lambda: app.workstream.turns == 1, message="the turn ends")


async def test_a_judge_that_fails_says_so(fake_openai, tmp_path):
    fake_openai.queue(rm_call(), ErrorReply(400, "judge model is not loaded"), TextReply("ok"))
    app = judged_app(tmp_path, fake_openai.base_url, fake_openai.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "clean up")
        opinion = await opinion_of(pilot)
        assert opinion.verdict == "error" and "judge model is not loaded" in opinion.reason
        assert "judge (reviewer): failed:" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.workstream.turns == 1, message="the turn ends")
