"""Editing config.toml in place with tomlkit: comments, order and formatting stay as the user wrote them.

`edit_config(path, change)` is the one writer (setup's model choice and the MCP inspector's server
list both go through it); the file is replaced atomically, so a crash never leaves half a config.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

T = TypeVar("T")
SERVERS_SOURCE = "config.toml [mcp.servers]"  # ServerConfig.source of servers defined there


def edit_config(path: Path, change: Callable[[Any], T], *, tidy_end: bool = False) -> T:
    """Parse the file at `path` (missing: empty), let `change(doc)` edit it, write it back; returns what change returned.

    `tidy_end` ends the file with one newline (a removed last table leaves its separator behind).
    """
    import tomlkit

    path = Path(path)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    doc = tomlkit.parse(text)
    result = change(doc)
    written = tomlkit.dumps(doc)
    if tidy_end and written.strip():
        written = written.rstrip("\n") + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(written)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return result


def _servers_table(doc: Any, create: bool) -> Any:
    import tomlkit

    if "mcp" not in doc:
        if not create:
            return None
        doc.add("mcp", tomlkit.table(is_super_table=True))
    mcp = doc["mcp"]
    if "servers" not in mcp:
        if not create:
            return None
        mcp.add("servers", tomlkit.table(is_super_table=True))
    return mcp["servers"]


def write_mcp_server(path: Path, name: str, entry: Mapping[str, Any]) -> None:
    """Add or replace `[mcp.servers.<name>]` with `entry` (command/args/env or type/url/headers)."""
    import tomlkit

    def change(doc: Any) -> None:
        table = tomlkit.table()
        for key, value in entry.items():
            table[key] = value
        servers = _servers_table(doc, create=True)
        if name in servers:
            servers[name] = table
        else:
            servers.add(name, table)

    edit_config(path, change)


def remove_mcp_server(path: Path, name: str) -> bool:
    """Drop `[mcp.servers.<name>]`; False when the file does not define it."""
    def change(doc: Any) -> bool:
        servers = _servers_table(doc, create=False)
        if servers is None or name not in servers:
            return False
        del servers[name]
        return True

    return Path(path).exists() and edit_config(path, change, tidy_end=True)


def set_mcp_server_enabled(path: Path, name: str, enabled: bool) -> bool:
    """Write `enabled = false` (or drop the key to enable); False when the file does not define the server."""
    def change(doc: Any) -> bool:
        servers = _servers_table(doc, create=False)
        if servers is None or name not in servers:
            return False
        table = servers[name]
        if enabled:
            table.pop("enabled", None)
            table.pop("disabled", None)
        else:
            _set_in_own_body(table, "enabled", False)
        return True

    return Path(path).exists() and edit_config(path, change)


def _set_in_own_body(table: Any, key: str, value: Any) -> None:
    """Set `key` at the end of the table's own keys: the blank lines and comments that end a table's
    body belong to the next table, so a new key goes before them, never after."""
    if key in table:
        table[key] = value
        return
    body = table.value.body  # tomlkit's (key, item) list; trivia (blank lines, comments) has key None
    end = len(body)
    while end and body[end - 1][0] is None:
        end -= 1
    trailing = body[end:]
    del body[end:]
    table[key] = value
    body.extend(trailing)
