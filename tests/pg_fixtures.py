"""Fixtures that run a store test on both databases: SQLite (a file) and PostgreSQL (a real server).

`pg_server` starts one PostgreSQL per test process (per xdist worker: a session fixture lives in its
worker) and stops it at the end; `store_target` is, per test, a new SQLite file's path or a new empty
database's URL on that server. Without Debian's PostgreSQL the PostgreSQL runs are skipped, saying why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.pg_server import PgServer, bin_dir

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    binaries = bin_dir()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; "
                    "apt-get install postgresql): the PostgreSQL runs are skipped")
    server = PgServer(binaries)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server for one test alone, which it may restart, stop and start again (the worker's
    shared `pg_server` is never disturbed); stopped and removed at the end."""
    binaries = bin_dir()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")
    server = PgServer(binaries)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(params=BACKENDS)
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a test's store lives: a SQLite file's path, or a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return tmp_path / "data" / "whimbrel.db"
    return request.getfixturevalue("pg_server").database()


def stored_rows(store: object, sql: str) -> list[tuple]:
    """What the store holds, read through its own engine (either database), as plain tuples."""
    with store.engine.connect() as conn:  # type: ignore[attr-defined]
        return [tuple(row) for row in conn.execute(sql)]


def keep_sqlite_only_tests_off_postgresql(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop the PostgreSQL run of a test that inspects SQLite itself: one that takes `db_path` (it opens
    the file) or is marked `sqlite_only` (pragmas, sqlite_master, FTS5's tables, the file's lock)."""
    keep, dropped = [], []
    for item in items:
        spec = getattr(item, "callspec", None)
        on_postgresql = spec is not None and spec.params.get("store_target") == "postgresql"
        sqlite_only = "db_path" in getattr(item, "fixturenames", ()) or item.get_closest_marker("sqlite_only")
        (dropped if on_postgresql and sqlite_only else keep).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
