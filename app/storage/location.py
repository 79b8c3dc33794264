"""Which store Whimbrel uses: the SQLite file in its data dir, or a PostgreSQL server a team shares.

In order, the first that is set wins:

1. `--db-url URL` on any command line (`take_db_url_flag` moves it into the environment, so every
   subcommand and every process Whimbrel starts sees the same choice);
2. the environment variable WHIMBREL_DATABASE_URL;
3. `[database] url` in config.toml;
4. otherwise `<data dir>/whimbrel.db`.

A PostgreSQL URL (`postgresql://user@host:5432/dbname?sslmode=verify-full&sslrootcert=/path/ca.pem`)
carries no password in the config: it comes from WHIMBREL_DATABASE_PASSWORD, else from the file
`[database] password_file` names (its first line), else from libpq's own PGPASSWORD or ~/.pgpass.
`[database] sslmode` and `sslrootcert` are passed through to libpq when the URL does not set them.
Wherever a URL is shown (messages, logs, `db status`), it goes through `shown_url`, which masks
any password written into it.

This module imports neither SQLAlchemy nor psycopg: choosing the SQLite file costs nothing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

SERVER_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")
URL_VARIABLE = "WHIMBREL_DATABASE_URL"
PASSWORD_VARIABLE = "WHIMBREL_DATABASE_PASSWORD"
TLS_KEYS = ("sslmode", "sslrootcert")


def is_server_url(location: Path | str | None) -> bool:
    """Whether `location` is a PostgreSQL URL (anything else is a SQLite file's path)."""
    return isinstance(location, str) and location.lower().startswith(SERVER_SCHEMES)


_USERINFO_PASSWORD = re.compile(r"^([a-z+]+://[^:/?#@]*):[^@/?#]*@", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&]*", re.IGNORECASE)


def shown_url(location: Path | str) -> str:
    """The store as it may be shown or logged: a URL's password masked, a path as it is."""
    text = str(location)
    if not is_server_url(text):
        return text
    return _QUERY_PASSWORD.sub(r"\1***", _USERINFO_PASSWORD.sub(r"\1:***@", text))


class StoreConfigError(ValueError):
    """The store's settings cannot be used (a password file that cannot be read, say)."""


@dataclass(frozen=True)
class StoreChoice:
    """Where the store is, what the driver needs beside the URL, and how to name it to the user."""

    location: Path | str
    connect_args: dict[str, Any] = field(default_factory=dict)

    @property
    def is_server(self) -> bool:
        return is_server_url(self.location)

    @property
    def shown(self) -> str:
        return shown_url(self.location)


def _password(config: Any, environ: Mapping[str, str]) -> str | None:
    if environ.get(PASSWORD_VARIABLE):
        return environ[PASSWORD_VARIABLE]
    path = getattr(config, "database_password_file", None)
    if not path:
        return None
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise StoreConfigError(f"[database] password_file {path} cannot be read: "
                               f"{getattr(error, 'strerror', None) or error}") from None
    lines = text.splitlines()
    return lines[0] if lines else ""


def choose_store(data_dir: Path, config: Any = None, environ: Mapping[str, str] | None = None) -> StoreChoice:
    """The store to open, by the order above; StoreConfigError when its settings cannot be used.
    The config's `[team] name`, when it has one, becomes who this instance is (app/storage/identity.py)."""
    from app.storage.identity import set_name

    if config is not None:
        set_name(getattr(config, "team_name", None))
    environ = os.environ if environ is None else environ
    url = environ.get(URL_VARIABLE) or getattr(config, "database_url", None)
    if not url:
        return StoreChoice(Path(data_dir).expanduser() / "whimbrel.db")
    if not is_server_url(url):
        raise StoreConfigError(f"the store URL {shown_url(url)} is not a PostgreSQL one "
                               "(postgresql://user@host/dbname); leave it unset to use the SQLite file")
    args: dict[str, Any] = {}
    password = _password(config, environ)
    if password is not None:
        args["password"] = password
    for key in TLS_KEYS:
        value = getattr(config, f"database_{key}", None)
        if value and f"{key}=" not in url:
            args[key] = str(Path(value).expanduser()) if key == "sslrootcert" else value
    return StoreChoice(url, args)


def chosen_or_file(data_dir: Path, config: Any = None) -> tuple[StoreChoice, str | None]:
    """The store to open and None; or, when its settings cannot be used, the data dir's file and what
    was wrong (the window says it and goes on rather than refusing to start)."""
    try:
        return choose_store(data_dir, config), None
    except StoreConfigError as error:
        fallback = StoreChoice(Path(data_dir).expanduser() / "whimbrel.db")
        return fallback, f"{error}; using {fallback.shown}"


def take_db_url_flag(argv: list[str], environ: Any = None) -> list[str]:
    """`argv` without `--db-url URL` / `--db-url=URL`, whose URL goes to WHIMBREL_DATABASE_URL."""
    environ = os.environ if environ is None else environ
    out, i = [], 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            out += argv[i:]
            break
        if word == "--db-url" and i + 1 < len(argv):
            environ[URL_VARIABLE] = argv[i + 1]
            i += 2
            continue
        if word.startswith("--db-url="):
            environ[URL_VARIABLE] = word.split("=", 1)[1]
        else:
            out.append(word)
        i += 1
    return out
