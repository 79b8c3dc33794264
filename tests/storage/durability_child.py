"""Child process for the durability test: writes messages forever, reporting each one.

Usage: python durability_child.py DB_PATH WORKSTREAM_ID. Prints "wrote N" after each
add_message has returned; the parent SIGKILLs it at an arbitrary moment.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.vocabulary.messages import Message, ToolCall
from app.storage.store import Store


def main() -> None:
    store = Store(Path(sys.argv[1]))
    ws = sys.argv[2]
    n = 0
    while True:
        n += 1
        msg = Message(role="assistant", content=f"turn {n}",
                      tool_calls=[ToolCall(f"c{n}", "bash", "{}")])
        store.add_message(ws, msg)
        print(f"wrote {n}", flush=True)


if __name__ == "__main__":
    main()
