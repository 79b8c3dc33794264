"""The few places where SQLite and PostgreSQL need different SQL, each a small function.

Everything else in the store is one statement for both (`?`/`:name` parameters, `ON CONFLICT … DO
UPDATE SET … = excluded.…`, `coalesce`, `substr`, `||`, `LIMIT … OFFSET …`). What differs:

- the schema's statements: SQLite runs app/storage/schema.py's text, PostgreSQL the Core tables
  (app/storage/tables.py) compiled for it (an integer `id` key is SQLite's rowid, PostgreSQL's SERIAL);
- whether a table exists: `sqlite_master` against `to_regclass`;
- LIKE: case-insensitive for ASCII on SQLite, case-sensitive on PostgreSQL, where ILIKE is the same
  match as SQLite's LIKE;
- joining a group's values: `group_concat` against `string_agg`;
- GLOB, which PostgreSQL lacks: the pattern becomes an anchored regular expression.

Full-text search differs more and has its own modules (app/storage/fts.py, app/storage/pg_fts.py).
"""

from __future__ import annotations

import re
from typing import Any

def table_exists(conn: Any, name: str) -> bool:
    """Whether the table `name` exists in the store `conn` is connected to."""
    if conn.dialect == "postgresql":
        return conn.execute("SELECT to_regclass(?) IS NOT NULL", (name,)).scalar()
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).first() is not None


def like(conn: Any) -> str:
    """The LIKE operator that matches as SQLite's does (case-insensitively for ASCII)."""
    return "ILIKE" if conn.dialect == "postgresql" else "LIKE"


def group_concat(conn: Any, expression: str, separator: str) -> str:
    """An aggregate joining `expression`'s values with `separator` (a constant from code)."""
    function = "string_agg" if conn.dialect == "postgresql" else "group_concat"
    return f"{function}({expression}, '{separator}')"


def glob(conn: Any, column: str, pattern: str) -> tuple[str, str]:
    """(condition, parameter) matching `column` against SQLite's GLOB `pattern` (`*`, `?`, `[…]`, case-sensitive)."""
    if conn.dialect != "postgresql":
        return f"{column} GLOB ?", pattern
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        end = pattern.find("]", i + 2) if char == "[" else -1
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif end != -1:
            out.append("[" + re.sub(r"[\\\]]", r"\\\g<0>", pattern[i + 1:end]) + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return f"{column} ~ ?", "^" + "".join(out) + "$"
