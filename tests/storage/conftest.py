"""Fixtures for storage tests: a Store with a controllable clock, on a real SQLite file and on a real
PostgreSQL server (tests/pg_fixtures.py): every test that takes `store` runs on both."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from app.storage.store import Store


class Clock:
    """A deterministic clock: each call returns one second later than the last."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "whimbrel.db"


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    s = Store(store_target, clock=Clock())
    yield s
    s.close()
