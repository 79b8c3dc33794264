"""A turn whose team store stops answering (a real PostgreSQL server, this test's own, stopped): the
prompt the store could not take is not sent to the model and goes back to the user (PromptReturned),
in words that name the store by its masked URL; the store's link marks it unreachable and, once the
server is back, reachable again by its own retries; the same prompt then goes through and is stored."""

from __future__ import annotations

import asyncio

from app.engine import events as ev
from app.storage.location import URL_VARIABLE
from tests.engine.harness import Recorder, make_session, shutdown
from tests.fake_llm.script import TextReply


async def test_a_prompt_the_store_cannot_take_is_given_back_not_sent(tmp_path, own_pg_server, fake_openai,
                                                                     monkeypatch) -> None:
    url = (await asyncio.to_thread(own_pg_server.database)).replace("whimbrel@", "whimbrel:pw-never-shown@", 1)
    monkeypatch.setenv(URL_VARIABLE, url)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    recorder = Recorder()
    session, store = await make_session(fake_openai, workspace, tmp_path / "data", recorder)
    store.link.backoff = (0.1, 0.5)
    try:
        await asyncio.to_thread(own_pg_server.halt)
        await session.run_turn("Do not lose me.")
        assert [e.text for e in recorder.of(ev.PromptReturned)] == ["Do not lose me."]
        (notice,) = [e.text for e in recorder.of(ev.Notice) if e.level == "error"]
        assert notice.startswith("Not sent: the team store did not answer") and "whimbrel:***@" in notice, notice
        assert "pw-never-shown" not in notice
        assert not recorder.of(ev.UserMessageAdded) and fake_openai.requests == [], "nothing went to the model"
        assert session.messages == [], "the prompt left the conversation too"
        assert not store.link.reachable

        await asyncio.to_thread(own_pg_server.resume)
        for _ in range(600):  # the link's own retries find the server back
            if store.link.reachable:
                break
            await asyncio.sleep(0.05)
        assert store.link.reachable and store.link.outages == 1

        fake_openai.queue(TextReply("Kept."))
        await session.run_turn("Do not lose me.")
        stored = await store.load_messages(session.workstream_id)
        assert [(m.role, m.content) for m in stored] == [("user", "Do not lose me."), ("assistant", "Kept.")]
    finally:
        await shutdown(session, store)
