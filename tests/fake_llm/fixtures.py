"""Pytest fixtures for the fake LLM servers; tests/conftest.py re-exports them.

One server runs per test session (starting and stopping uvicorn costs ~0.15 s); each test
gets it reset: empty queue, no recorded requests, default options.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.fake_llm.openai_server import FakeOpenAIServer


@pytest.fixture(scope="session")
def fake_openai_session() -> Iterator[FakeOpenAIServer]:
    """The session's FakeOpenAIServer; use `fake_openai` in tests."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake_openai(fake_openai_session: FakeOpenAIServer) -> FakeOpenAIServer:
    """A running FakeOpenAIServer, reset for this test."""
    fake_openai_session.reset()
    return fake_openai_session
