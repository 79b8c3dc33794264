"""Which store a location names: a SQLite file's path, or a PostgreSQL server's URL.

Kept apart from the engines so telling them apart imports neither SQLAlchemy nor psycopg.
"""

from __future__ import annotations

from pathlib import Path

SERVER_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")


def is_server_url(location: Path | str | None) -> bool:
    """Whether `location` is a PostgreSQL URL (anything else is a SQLite file's path)."""
    return isinstance(location, str) and location.lower().startswith(SERVER_SCHEMES)
