"""A retry note (a one-off 429 or 500 before the reply began) is shown above the answer it preceded,
in the order things happened, not below it."""

from __future__ import annotations

import pytest

from tests.fake_llm.script import ErrorReply, TextReply
from tests.ui.helpers import make_app, submit, wait_for
from widgets.messages import AssistantMessage, Notice


@pytest.mark.parametrize("status", [429, 500])
async def test_a_retry_note_comes_before_the_answer(fake_openai, tmp_path, status) -> None:
    fake_openai.queue(ErrorReply(status, "try again shortly"), TextReply("The answer after the retry."))
    app = make_app(tmp_path, fake_openai.base_url)
    async with app.run_test(size=(110, 34)) as pilot:
        await submit(pilot, "question")
        view = app.main_screen.view_for(app.focused_id)
        await wait_for(pilot, lambda: app.workstream.turns == 1, message="the turn")
        children = list(view.transcript.children)
        notes = [i for i, w in enumerate(children) if isinstance(w, Notice) and "retrying" in str(w.render())]
        answers = [i for i, w in enumerate(children)
                   if isinstance(w, AssistantMessage) and "The answer after the retry." in w.content]
        assert notes and answers, [type(w).__name__ for w in children]
        assert notes[-1] < answers[0], [type(w).__name__ for w in children]
