"""Choosing the store: flag, environment, config, else the data dir's file; the password never shown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.storage.location import (PASSWORD_VARIABLE, URL_VARIABLE, StoreConfigError, choose_store, shown_url,
                                  take_db_url_flag)

ROOT = Path(__file__).resolve().parents[2]


def _config(**values):
    keys = ("url", "password_file", "sslmode", "sslrootcert")
    return SimpleNamespace(**{f"database_{k}": values.get(k) for k in keys})


def test_the_data_dirs_file_unless_a_url_is_given(tmp_path: Path) -> None:
    assert choose_store(tmp_path, _config(), environ={}).location == tmp_path / "whimbrel.db"
    chosen = choose_store(tmp_path, _config(url="postgresql://team@db.example/whimbrel"), environ={})
    assert chosen.is_server and chosen.location == "postgresql://team@db.example/whimbrel"
    over = choose_store(tmp_path, _config(url="postgresql://team@db.example/whimbrel"),
                        environ={URL_VARIABLE: "postgresql://me@other/w"})
    assert over.location == "postgresql://me@other/w", "the environment (and so --db-url) beats the config"


def test_the_password_comes_from_the_environment_or_its_file(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("s3cret-from-file\nignored\n")
    config = _config(url="postgresql://team@db/w", password_file=str(secret), sslmode="verify-full",
                     sslrootcert=str(tmp_path / "ca.pem"))
    chosen = choose_store(tmp_path, config, environ={})
    assert chosen.connect_args == {"password": "s3cret-from-file", "sslmode": "verify-full",
                                   "sslrootcert": str(tmp_path / "ca.pem")}
    assert choose_store(tmp_path, config, environ={PASSWORD_VARIABLE: "from-env"}).connect_args["password"] == "from-env"
    in_url = choose_store(tmp_path, _config(url="postgresql://t@db/w?sslmode=require", sslmode="disable"), environ={})
    assert "sslmode" not in in_url.connect_args, "the URL's own TLS options win"


def test_bad_settings_are_said_in_words(tmp_path: Path) -> None:
    with pytest.raises(StoreConfigError, match="password_file .* cannot be read"):
        choose_store(tmp_path, _config(url="postgresql://t@db/w", password_file=str(tmp_path / "missing")), environ={})
    with pytest.raises(StoreConfigError, match="not a PostgreSQL one"):
        choose_store(tmp_path, _config(url="mysql://root:pw@db/w"), environ={})


def test_a_password_in_a_url_is_never_shown() -> None:
    assert shown_url("postgresql://team:hunter2@db:5432/w?sslmode=require") == \
        "postgresql://team:***@db:5432/w?sslmode=require"
    assert "hunter2" not in shown_url("postgresql://team@db/w?password=hunter2&sslmode=require")
    assert shown_url("/home/me/.local/share/whimbrel/whimbrel.db") == "/home/me/.local/share/whimbrel/whimbrel.db"


def test_db_url_flag_is_taken_from_any_command_line() -> None:
    env: dict[str, str] = {}
    assert take_db_url_flag(["audit", "--db-url", "postgresql://a@b/c", "--json"], env) == ["audit", "--json"]
    assert env[URL_VARIABLE] == "postgresql://a@b/c"
    assert take_db_url_flag(["run", "--db-url=postgresql://x@y/z", "--", "--db-url", "kept"], env) == \
        ["run", "--", "--db-url", "kept"]
    assert env[URL_VARIABLE] == "postgresql://x@y/z"


def test_an_unreachable_server_is_reported_without_its_password(tmp_path: Path) -> None:
    """`whimbrel audit` against a server that is not there: exit 1 or 2 with a message, no traceback,
    and the password given in the URL appears nowhere in what is printed."""
    url = f"postgresql://team:hunter2@/w?host={tmp_path}&port=1"  # no socket there: refused at once
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WHIMBREL_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-m", "app.cli", "audit", "--db-url", url], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "hunter2" not in done.stdout + done.stderr


def test_the_window_falls_back_to_the_file_and_says_why(tmp_path: Path) -> None:
    from app.storage.location import chosen_or_file

    chosen, problem = chosen_or_file(tmp_path, _config(url="mysql://x@y/z"))
    assert chosen.location == tmp_path / "whimbrel.db" and "not a PostgreSQL one" in problem
    assert chosen_or_file(tmp_path, _config())[1] is None
