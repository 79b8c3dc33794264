"""Child process for the two-writer test: many small read-then-write transactions on a shared file.

Usage: python writer_child.py DB_PATH WORKSTREAM_ID LABEL COUNT GO_FILE. Opens the store, prints
"ready", waits until GO_FILE exists (so both children start together), then writes COUNT rounds
and prints "done". Any exception
(a "database is locked", say) ends it with a traceback on stderr and a non-zero exit.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from app.storage.store import Store
from app.vocabulary.messages import Message


def main() -> None:
    path, ws, label, count, go = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), Path(sys.argv[5])
    store = Store(Path(path))
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.005)
    own = store.create_workstream(title=label)
    for n in range(count):
        store.add_prompt_history(ws, f"{label} prompt {n}")  # read the last entry, then insert
        store.add_message(ws, Message(role="user", content=f"{label} message {n}"))
        store.add_message(own, Message(role="assistant", content=f"{label} reply {n}"))
        store.set_app_state(f"tabs-{label}", [ws, own, n])
        store.update_workstream(own, state="idle")
        store.load_messages(ws)  # a reader alongside the other writer
    store.close()
    print("done", flush=True)


if __name__ == "__main__":
    main()
