"""Who this Whimbrel is, as the store records it beside messages, tool calls and audit rows.

By default `user@host` (the login name and the machine's name); `[team] name = "…"` in config.toml
sets it instead (the app, `whimbrel run` and `whimbrel audit` call `set_name` once they read it). One
process is one instance, so the name is kept for the process.
"""

from __future__ import annotations

import getpass
import socket

_name: str | None = None


def default_name() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no login name for this uid (a container)
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


def set_name(name: str | None) -> None:
    """Use `name` from now on (None or blank: user@host)."""
    global _name
    _name = name.strip() if name and name.strip() else None


def who() -> str:
    """This instance's name."""
    return _name or default_name()
