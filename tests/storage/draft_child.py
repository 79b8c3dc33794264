"""Child process for the draft tests: streams one reply into the store forever, reporting each save.

Usage: python draft_child.py DB_PATH WORKSTREAM_ID. The first save adds the draft row ("saved 1"),
each later one appends a piece ("saved N"); the parent SIGKILLs it at an arbitrary moment.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.storage.store import Store
from app.vocabulary.messages import Message


def piece(n: int) -> str:
    """The text of save number `n` (the parent rebuilds the reply from these)."""
    return f"piece {n}; "


def main() -> None:
    store = Store(Path(sys.argv[1]))
    ws = sys.argv[2]
    draft = store.add_message(ws, Message(role="assistant", content=piece(1), interrupted=True))
    print("saved 1", flush=True)
    n = 1
    while True:
        n += 1
        store.append_draft(ws, draft, piece(n), "")
        print(f"saved {n}", flush=True)


if __name__ == "__main__":
    main()
