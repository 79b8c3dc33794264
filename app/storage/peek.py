"""A quick read-only look at the tabs the last run left open, with the standard library's sqlite3.

The first frame shows the saved tabs before the store and the engine have loaded (most of a
second on a small machine); boot then restores them for real and replaces this view. Anything
unexpected (no file yet, an older schema, a locked or broken database) means "nothing to show":
boot opens the store properly and reports problems there.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from concurrent.futures import Future

from app.storage.lease_rules import Lease, Owner

if TYPE_CHECKING:  # imported where it is used: on the thread that reads, not on the UI's
    import sqlite3

UNTITLED = "new workstream"  # what a workstream without a title or alias is called (app/engine/workstream.py)


@dataclass(frozen=True)
class SavedTabs:
    """The saved tabs' names in order, which one had the focus, and that one's own settings."""

    names: list[str]
    focused: int = 0
    model_alias: str | None = None  # the focused tab's model, when it chose one
    mode: str | None = None  # the focused tab's permission mode, when it chose one


def saved_tabs(db_path: Path) -> SavedTabs | None:
    """The tabs boot will restore from `db_path` (those another live window holds are left out, as
    boot leaves them), or None when there are none or the file cannot be read as expected."""
    import sqlite3

    if not db_path.is_file():
        return None
    try:
        connection = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.2)
    except sqlite3.Error:
        return None
    try:
        return _read(connection)
    except (sqlite3.Error, ValueError, TypeError):
        return None
    finally:
        connection.close()


def read_in_background(db_path: Path) -> Future[SavedTabs | None]:
    """Start `saved_tabs(db_path)` on a thread of its own and return its future: the CLI starts it
    before Textual is imported, so the first frame can show the tabs instead of a frame later."""
    import threading

    future: Future[SavedTabs | None] = Future()

    def read() -> None:
        try:
            future.set_result(saved_tabs(db_path))
        except BaseException as error:  # noqa: BLE001 - handed to whoever waits for it
            future.set_exception(error)

    threading.Thread(target=read, name="whimbrel-saved-tabs", daemon=True).start()
    return future


def _state(connection: sqlite3.Connection, key: str):
    row = connection.execute("SELECT value FROM app_state WHERE key = ?", (key,)).fetchone()
    return None if row is None else json.loads(row[0])


def _panes(layout, known: list[str]) -> list[str]:
    """The workstreams of a saved layout (app/engine/layout.py's to_dict), in pane order."""
    if not isinstance(layout, dict):
        return []
    if "ws" in layout:
        return [layout["ws"]] if layout["ws"] in known else []
    return _panes(layout.get("a"), known) + _panes(layout.get("b"), known)


def _focused(connection: sqlite3.Connection, shown: list[str]) -> str:
    """The tab boot focuses: the saved focus when a saved pane shows it, else the first pane, else
    the first tab (app/tui/workstreams/workspace_ops.py, WorkspaceOps.restore)."""
    panes = _panes(_state(connection, "layout"), shown)
    if not panes:
        return shown[0]
    focused = _state(connection, "focused")
    return focused if focused in panes else panes[0]


def _read(connection: sqlite3.Connection) -> SavedTabs | None:
    ids = [i for i in _state(connection, "tabs") or [] if isinstance(i, str)]
    names = {row[0]: row[1] or row[2] or UNTITLED for row in connection.execute(
        f"SELECT id, alias, title FROM workstreams WHERE id IN ({','.join('?' * len(ids))})", ids)}
    me, now = Owner("first frame", os.getpid(), socket.gethostname()), time.time()
    held = {row[0] for row in connection.execute(
        f"SELECT workstream_id, instance_id, pid, host, heartbeat_at FROM workstream_leases "
        f"WHERE workstream_id IN ({','.join('?' * len(ids))})", ids)
        if not Lease(row[0], Owner(row[1], row[2], row[3]), row[4]).is_free_for(me, now)}
    shown = [i for i in ids if i in names and i not in held]
    if not shown:
        return None
    focused = shown.index(_focused(connection, shown)) if shown else 0
    settings = {key: json.loads(value) for key, value in connection.execute(
        "SELECT key, value FROM workstream_config WHERE workstream_id = ? AND key IN ('model_alias', 'policy_mode')",
        (shown[focused],))}
    alias, mode = settings.get("model_alias"), settings.get("policy_mode")
    return SavedTabs([names[i] for i in shown], focused, alias if isinstance(alias, str) else None,
                     mode if isinstance(mode, str) else None)
