"""Keys typed the moment `whimbrel` is spawned, in a real pty, all reach the prompt in order.

Nothing waits for a screen before typing: part of the prompt is written at once (the process is still
importing, the terminal not yet in raw mode), the rest a key at a time through the first frame and
boot. The terminal's own echo is off, so text on screen is what Whimbrel painted.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.installed import e2e_marks, places
from tests.e2e.pty_app import PtyApp
from tests.e2e.stored import only_conversation
from tests.e2e.test_acceptance import whimbrel_argv
from tests.fake_llm.script import TextReply

AT_ONCE = "Typed at spawn, "
ONE_BY_ONE = "then key by key through boot."

pytestmark = e2e_marks()


def test_keys_typed_at_spawn_all_reach_the_prompt_in_order(fake_openai, tmp_path: Path) -> None:
    workdir, data_dir = places(tmp_path)
    fake_openai.queue(TextReply("Every key arrived."))
    with PtyApp(whimbrel_argv(fake_openai.base_url, workdir, data_dir), echo=False) as app:
        app.send(AT_ONCE)
        app.type_slowly(ONE_BY_ONE, pause=0.03)
        app.wait_for(AT_ONCE + ONE_BY_ONE, timeout=60)
        app.send("\r")
        app.wait_for("Every key arrived.", timeout=60)
        app.send("\x11")  # Ctrl+Q
        assert app.wait_exit(timeout=15) == 0
    _, messages = only_conversation(data_dir / "whimbrel.db")
    assert [m.content for m in messages if m.role == "user"] == [AT_ONCE + ONE_BY_ONE]
