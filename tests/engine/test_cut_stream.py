"""A stream whose body ends without its end marker is an interrupted reply, not a complete one.

The hostile model server's `cut` sends some text and then closes the body: no finish reason and
no [DONE] (chat completions), no message_delta / message_stop (Anthropic), no response.completed
(Responses). The partial text must be stored with `interrupted` set, and the user told.
"""

from __future__ import annotations

import pytest

from app.engine import events as ev
from app.engine.session import Session
from app.providers.base import ModelSettings
from app.providers.registry import make_provider
from app.storage.async_store import AsyncStore
from tests.engine.harness import Recorder
from tests.hostile.model_fixtures import hostile_model, hostile_model_session  # noqa: F401
from tests.hostile.model_server import CUT_TEXT
from tools.context import ToolContext
from tools.registry import ToolRegistry

PROVIDERS = ["openai", "openai-responses", "anthropic"]


def settings_for(server, provider: str) -> ModelSettings:
    url = server.anthropic_url if provider == "anthropic" else server.base_url
    return ModelSettings(model="hostile-model", base_url=url, api_key="x", provider=provider, timeout=10.0)


async def run_one_turn(server, provider: str, text: str, tmp_path) -> tuple[Recorder, list]:
    """One turn through a real Session and provider; returns the events and the stored messages."""
    store = await AsyncStore.open(tmp_path / "whimbrel.db")
    workstream = await store.create_workstream(title="t", model="hostile-model", workdir=str(tmp_path))
    recorder = Recorder()
    session = Session(workstream_id=workstream, provider=make_provider(settings_for(server, provider)),
                      registry=ToolRegistry.load_builtin(), tool_context=ToolContext(workspace=tmp_path),
                      emit=recorder, store=store, max_retries=0, retry_base_delay=0.0)
    try:
        await session.run_turn(text)
        return recorder, await store.load_messages(workstream)
    finally:
        await session.provider.close()
        await store.aclose()


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_cut_stream_is_stored_as_interrupted_and_the_user_is_told(hostile_model, provider, tmp_path):
    recorder, stored = await run_one_turn(hostile_model, provider, "cut please", tmp_path)
    reply = [m for m in stored if m.role == "assistant"]
    assert [m.content for m in reply] == [CUT_TEXT]
    assert reply[0].interrupted is True
    notices = [n.text for n in recorder.of(ev.Notice)]
    assert any("closed before the reply was complete" in n and "marked as interrupted" in n for n in notices), notices
    assert recorder.of(ev.AssistantFinished)[-1].interrupted is True


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_whole_stream_is_still_complete(hostile_model, provider, tmp_path):
    """The control: the same server's well-behaved reply is stored complete, with no notice."""
    recorder, stored = await run_one_turn(hostile_model, provider, "hello there", tmp_path)
    reply = [m for m in stored if m.role == "assistant"]
    assert [m.content for m in reply] == ["You said: hello there"]
    assert reply[0].interrupted is False
    assert not [n for n in recorder.of(ev.Notice) if n.level == "error"]
