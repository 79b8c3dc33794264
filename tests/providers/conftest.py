"""Fixtures for provider tests; `fake_openai` comes from tests/conftest.py."""

from __future__ import annotations

from typing import AsyncIterator

import pytest

from app.providers.base import ModelSettings
from app.providers.openai_chat import OpenAIChatProvider
from tests.fake_llm.openai_server import FakeOpenAIServer


@pytest.fixture
async def provider(fake_openai: FakeOpenAIServer) -> AsyncIterator[OpenAIChatProvider]:
    """An OpenAIChatProvider pointed at the fake server."""
    chat = OpenAIChatProvider(ModelSettings(model="fake-model", base_url=fake_openai.base_url,
                                            timeout=10.0))
    yield chat
    await chat.close()
