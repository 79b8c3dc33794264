"""Pytest fixtures for the fake Anthropic server (re-exported by tests/conftest.py)."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.fake_llm.anthropic_server import FakeAnthropicServer


@pytest.fixture(scope="session")
def fake_anthropic_session() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        yield server


@pytest.fixture
def fake_anthropic(fake_anthropic_session: FakeAnthropicServer) -> FakeAnthropicServer:
    """A running FakeAnthropicServer, reset for this test."""
    fake_anthropic_session.reset()
    return fake_anthropic_session
