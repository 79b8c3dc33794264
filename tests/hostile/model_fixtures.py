"""The `hostile_model` fixture: one fault-injecting model server per test session, reset per test.

Import it into a test module (`from tests.hostile.model_fixtures import hostile_model, hostile_model_session`).
"""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.hostile.model_server import HostileModelServer


@pytest.fixture(scope="session")
def hostile_model_session() -> Iterator[HostileModelServer]:
    """The session's HostileModelServer; use `hostile_model` in tests."""
    with HostileModelServer() as server:
        yield server


@pytest.fixture
def hostile_model(hostile_model_session: HostileModelServer) -> HostileModelServer:
    """A running HostileModelServer with nothing recorded yet."""
    hostile_model_session.reset()
    return hostile_model_session
