"""Reading what an app run left in its store file, after the process has ended."""

from __future__ import annotations

from pathlib import Path

from app.storage.store import Store
from app.vocabulary.messages import Message


def only_conversation(db: Path) -> tuple[str, list[Message]]:
    """The id and messages of the one workstream in the store at `db` (fails if there are others)."""
    store = Store(db)
    try:
        (info,) = store.list_workstreams()
        return info.id, store.load_messages(info.id)
    finally:
        store.close()
