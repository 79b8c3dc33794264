"""The MCP inspector's call history in the store: kept across instances, bounded by the retention
setting and per server, hostile JSON columns read back as empty values rather than errors."""

from __future__ import annotations

import threading
from pathlib import Path

from app.storage import mcp_call_store
from app.storage.store import Store

DAY = 86400.0


def _call(store: Store, server: str = "everything", item: str = "echo", *, at: float, **extra) -> int:
    values = dict(kind="tools", item=item, label=item, arguments={"message": "hi"}, raw={"message": "hi"},
                  ok=True, elapsed_ms=3.5, answer={"result": {"content": [{"type": "text", "text": "hi"}]}}, at=at)
    values.update(extra)
    return mcp_call_store.record(store, server, **values)


def test_calls_written_by_one_instance_are_read_by_another(tmp_path: Path):
    path = tmp_path / "whimbrel.db"
    first, second = Store(path), Store(path)
    try:
        _call(first, at=1000.0)
        _call(second, item="add", at=1001.0, arguments={"a": 1, "b": 2})
        _call(first, server="time", item="get_current_time", at=1002.0)
        rows = mcp_call_store.recent(Store(path), "everything")
        assert [r["item"] for r in rows] == ["echo", "add"]  # oldest first, only this server's
        assert rows[1]["arguments"] == {"a": 1, "b": 2} and rows[0]["answer"]["result"]["content"][0]["text"] == "hi"
        assert rows[0]["ok"] is True and rows[0]["elapsed_ms"] == 3.5
    finally:
        first.close()
        second.close()


def test_two_instances_writing_at_once_lose_nothing_and_keep_the_bound(tmp_path: Path):
    path = tmp_path / "whimbrel.db"
    stores = [Store(path), Store(path)]
    errors: list[BaseException] = []

    def write(store: Store, offset: int) -> None:
        try:
            for n in range(30):
                _call(store, item=f"t{offset + n}", at=1000.0 + offset + n, limit=40)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(s, i * 100)) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        rows = mcp_call_store.recent(stores[0], "everything", limit=1000)
        expected = [f"t{n}" for n in range(20, 30)] + [f"t{n}" for n in range(100, 130)]
        assert [r["item"] for r in rows] == expected  # the newest 40 of the 60, in order
    finally:
        for store in stores:
            store.close()


def test_old_calls_are_pruned_with_the_retention_setting(tmp_path: Path):
    store = Store(tmp_path / "whimbrel.db")
    try:
        now = 100 * DAY
        _call(store, item="ancient", at=now - 40 * DAY)
        _call(store, server="other", item="old", at=now - 31 * DAY)
        _call(store, item="recent", at=now - 2 * DAY)
        _call(store, item="today", at=now, retention_days=30)  # a write prunes by age, every server
        assert [r["item"] for r in mcp_call_store.recent(store, "everything")] == ["recent", "today"]
        assert mcp_call_store.recent(store, "other") == []
        _call(store, item="kept", at=now - 400 * DAY, retention_days=0)  # 0 keeps them forever
        assert mcp_call_store.prune(store, 0, now=now) == 0
        assert mcp_call_store.prune(store, 30, now=now) == 1
    finally:
        store.close()


def test_a_row_with_unreadable_json_reads_as_empty_values(tmp_path: Path):
    store = Store(tmp_path / "whimbrel.db")
    try:
        with store.engine.begin() as conn:
            conn.insert("mcp_calls", {"server": "x", "at": 1.0, "kind": "tools", "item": "t", "label": "t",
                                      "arguments": "{not json", "raw": "[1, 2]", "ok": False, "elapsed_ms": 0.0,
                                      "answer": "null"})
        row = mcp_call_store.recent(store, "x")[0]
        assert row["arguments"] == {} and row["raw"] == {} and row["answer"] == {"error": "(unreadable)"}
    finally:
        store.close()


def test_a_huge_answer_is_kept_as_a_note(tmp_path: Path):
    store = Store(tmp_path / "whimbrel.db")
    try:
        _call(store, at=1.0, answer={"result": {"content": [{"type": "image", "data": "A" * 3_000_000}]}})
        answer = mcp_call_store.recent(store, "everything")[0]["answer"]
        assert "too large to keep" in answer["error"]
    finally:
        store.close()
