"""The store's engine (plain sqlite3): transactions, rows, defaults and the connection pool."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from app.storage.engine import make_engine, reader
from app.storage.migrations import migrate


@pytest.fixture
def engine(tmp_path: Path):
    engine = make_engine(tmp_path / "deep" / "w.db")  # the parent directory is created
    migrate(engine)
    yield engine
    engine.dispose()


def _workstream(conn, ws_id: str = "w1") -> None:
    conn.insert("workstreams", {"id": ws_id, "title": "t", "alias": None, "model": None,
                                "created_at": 1.0, "updated_at": 1.0})


def test_insert_fills_the_schemas_defaults_and_rows_answer_by_name_index_and_mapping(engine) -> None:
    with engine.begin() as conn:
        _workstream(conn)
        row_id = conn.insert("messages", {"workstream_id": "w1", "seq": 1, "role": "user", "created_at": 2.0})
    with reader(engine).connect() as conn:
        row = conn.execute("SELECT id, content, reasoning, is_error, interrupted FROM messages").one()
        ws = conn.execute("SELECT * FROM workstreams WHERE id = :id", {"id": "w1"}).first()
    assert row == (row_id, "", "", False, False)
    assert row.is_error is False and row.interrupted is False  # BOOLEAN columns come back as bool
    assert (ws.workdir, ws.state) == ("", "idle")
    assert ws._mapping["title"] == "t" and ws[0] == "w1"
    with pytest.raises(AttributeError):
        ws.no_such_column


def test_results_scalar_first_one_and_scalars(engine) -> None:
    with engine.begin() as conn:
        for ws_id in ("a", "b"):
            _workstream(conn, ws_id)
    with reader(engine).connect() as conn:
        assert conn.execute("SELECT id FROM workstreams ORDER BY id").scalars() == ["a", "b"]
        assert conn.execute("SELECT count(*) FROM workstreams").scalar() == 2
        assert conn.execute("SELECT id FROM workstreams WHERE id = 'z'").scalar() is None
        assert conn.execute("SELECT id FROM workstreams WHERE id = 'z'").first() is None
        with pytest.raises(LookupError):
            conn.execute("SELECT id FROM workstreams").one()


def test_a_block_that_raises_rolls_its_transaction_back(engine) -> None:
    with pytest.raises(RuntimeError):
        with engine.begin() as conn:
            _workstream(conn)
            raise RuntimeError("boom")
    with pytest.raises(sqlite3.IntegrityError):
        with engine.begin() as conn:
            _workstream(conn, "kept")
            _workstream(conn, "kept")  # the same primary key again: the whole transaction goes
    with reader(engine).connect() as conn:
        assert conn.execute("SELECT count(*) FROM workstreams").scalar() == 0
    with engine.begin() as conn:  # the pooled connection is usable again, with no transaction left open
        _workstream(conn)
    with reader(engine).connect() as conn:
        assert conn.execute("SELECT id FROM workstreams").scalars() == ["w1"]


def test_foreign_keys_are_enforced_and_deletes_cascade(engine) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        with engine.begin() as conn:
            conn.insert("messages", {"workstream_id": "nobody", "seq": 1, "role": "user", "created_at": 1.0})
    with engine.begin() as conn:
        _workstream(conn)
        conn.insert("messages", {"workstream_id": "w1", "seq": 1, "role": "user", "created_at": 1.0})
        conn.execute("DELETE FROM workstreams WHERE id = ?", ("w1",))
    with reader(engine).connect() as conn:
        assert conn.execute("SELECT count(*) FROM messages").scalar() == 0


def test_connections_are_pooled_across_threads_and_an_invalidated_one_is_closed(engine) -> None:
    with engine.connect() as conn:
        first = conn.raw
    with engine.connect() as conn:
        assert conn.raw is first  # reused
        conn.invalidate()
    with engine.connect() as conn:
        assert conn.raw is not first
    with pytest.raises(sqlite3.ProgrammingError):
        first.execute("SELECT 1")  # closed, not pooled

    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(20):
                with engine.begin() as conn:
                    _workstream(conn, f"t{n}-{i}")
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with reader(engine).connect() as conn:
        assert conn.execute("SELECT count(*) FROM workstreams").scalar() == 80


def test_a_read_transaction_sees_one_snapshot(engine, tmp_path: Path) -> None:
    with engine.begin() as conn:
        _workstream(conn, "before")
    other = sqlite3.connect(engine.path, isolation_level=None)
    try:
        with reader(engine).connect() as conn:
            assert conn.execute("SELECT count(*) FROM workstreams").scalar() == 1
            other.execute("INSERT INTO workstreams (id, workdir, created_at, updated_at, state) "
                          "VALUES ('after', '', 1, 1, 'idle')")  # a writer is not blocked by the read
            assert conn.execute("SELECT count(*) FROM workstreams").scalar() == 1
        with reader(engine).connect() as conn:
            assert conn.execute("SELECT count(*) FROM workstreams").scalar() == 2
    finally:
        other.close()
