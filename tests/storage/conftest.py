"""Fixtures for storage tests: a Store on a real SQLite file with a controllable clock."""

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
def store(db_path: Path) -> Iterator[Store]:
    s = Store(db_path, clock=Clock())
    yield s
    s.close()
