"""A provider's client is built on a worker thread before the first request needs it
(`prepare_off_loop`, app/providers/registry.py): its HTTP transport's imports and TLS context no
longer stall the event loop. Over a real socket to the fake OpenAI server."""

from __future__ import annotations

import asyncio
import threading

from app.providers.base import ModelSettings
from app.providers.openai_chat import OpenAIChatProvider
from app.providers.registry import prepare_off_loop
from tests.fake_llm.script import TextReply
from tests.providers.streams import collect, text_of


class RecordingProvider(OpenAIChatProvider):
    """OpenAIChatProvider that notes the thread each client was built on; `broken` builds fail."""

    def __init__(self, settings: ModelSettings, *, broken: int = 0) -> None:
        super().__init__(settings)
        self.built_on: list[str] = []
        self.broken = broken

    def _new_client(self):
        self.built_on.append(threading.current_thread().name)
        if self.broken:
            self.broken -= 1
            raise ValueError("cannot build a client now")
        return super()._new_client()


def settings_for(server) -> ModelSettings:
    return ModelSettings(model="fake-model", base_url=server.base_url, timeout=10.0)


async def test_the_client_is_built_off_the_loop_and_the_first_request_uses_it(fake_openai):
    provider = RecordingProvider(settings_for(fake_openai))
    try:
        await prepare_off_loop(provider)
        prepared = provider.client
        fake_openai.queue(TextReply("prepared ahead"))
        assert text_of(await collect(provider)) == "prepared ahead"
        assert provider.client is prepared
        assert len(provider.built_on) == 1 and provider.built_on[0] != threading.current_thread().name
    finally:
        await provider.close()


async def test_a_client_already_there_is_kept(fake_openai):
    provider = RecordingProvider(settings_for(fake_openai))
    try:
        existing = provider.client  # a request built it first
        await prepare_off_loop(provider)
        assert provider.client is existing and len(provider.built_on) == 1
    finally:
        await provider.close()


async def test_a_client_that_cannot_be_built_is_left_to_the_request(fake_openai):
    provider = RecordingProvider(settings_for(fake_openai), broken=1)
    try:
        await prepare_off_loop(provider)  # no error here: the request is where it is reported
        fake_openai.queue(TextReply("built by the request"))
        assert text_of(await collect(provider)) == "built by the request"
        assert len(provider.built_on) == 2
    finally:
        await provider.close()


async def test_callers_that_come_while_the_client_is_built_wait_for_that_one(fake_openai):
    provider = RecordingProvider(settings_for(fake_openai))
    try:
        await asyncio.gather(*(prepare_off_loop(provider) for _ in range(3)))  # the first key, then Enter
        assert len(provider.built_on) == 1 and provider.client is not None
    finally:
        await provider.close()
