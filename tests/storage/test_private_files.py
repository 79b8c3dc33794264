"""Whimbrel's files are the user's alone, on disk: the data dir 0700, the store with its WAL and SHM, the
error log and OAuth tokens 0600, whatever the umask; looser modes found at start are tightened and said."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.runtime import error_log
from app.storage.store import Store

ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    """The loosest usual umask (0o022 leaves files 0644): what Whimbrel creates must not depend on it."""
    before = os.umask(0o022)
    yield
    os.umask(before)


@pytest.fixture
def restore_logger():
    yield
    logger = logging.getLogger(error_log.LOGGER)
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()


def test_a_new_data_dir_store_and_log_are_private(tmp_path, open_umask, restore_logger):
    data = tmp_path / "nested" / "data"
    store = Store(data / "whimbrel.db")
    try:
        store.create_workstream(model="model")  # a write: the WAL and SHM exist now
        assert (data / "whimbrel.db-wal").exists() and (data / "whimbrel.db-shm").exists()
        assert mode(data) == 0o700
        for name in ("whimbrel.db", "whimbrel.db-wal", "whimbrel.db-shm"):
            assert mode(data / name) == 0o600, name
        assert store.engine.notices == []
    finally:
        store.close()
    log = error_log.install(data)
    logging.getLogger(error_log.LOGGER).error("something failed")
    assert mode(log) == 0o600


def test_looser_modes_found_at_start_are_tightened_with_a_notice(tmp_path, open_umask):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    Store(data / "whimbrel.db").close()
    tokens = data / "mcp-oauth" / "server"
    tokens.mkdir(parents=True)
    (tokens / "tokens.json").write_text("{}")
    for path, loose in ((data, 0o755), (data / "whimbrel.db", 0o644), (data / "mcp-oauth", 0o755),
                        (tokens / "tokens.json", 0o644)):
        os.chmod(path, loose)
    (data / "whimbrel.log").write_text("old\n")
    os.chmod(data / "whimbrel.log", 0o644)
    store = Store(data / "whimbrel.db")
    try:
        [notice] = store.engine.notices
    finally:
        store.close()
    assert "other users" in notice and "whimbrel.db (0644)" in notice and "tokens.json (0644)" in notice
    assert mode(data) == 0o700 and mode(data / "mcp-oauth") == 0o700
    for path in (data / "whimbrel.db", data / "whimbrel.log", tokens / "tokens.json"):
        assert mode(path) == 0o600, path
    assert Store(data / "whimbrel.db").engine.notices == []  # said once: the next start finds nothing


def test_a_headless_run_says_it_tightened_the_store(tmp_path, fake_openai):
    from tests.fake_llm.script import TextReply
    from tests.headless.helpers import model_flags

    data = tmp_path / "data"
    Store(data / "whimbrel.db").close()
    os.chmod(data, 0o755)
    os.chmod(data / "whimbrel.db", 0o644)
    fake_openai.queue(TextReply("hi"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WHIMBREL_DATA_DIR": str(data)}
    (tmp_path / "ws").mkdir()
    ran = subprocess.run([sys.executable, "-m", "app.cli", "run", *model_flags(fake_openai.base_url), "--output",
                          "stream-json", "hello"], cwd=tmp_path / "ws", env=env, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    assert ran.returncode == 0, ran.stderr
    notices = [json.loads(line)["text"] for line in ran.stdout.splitlines() if '"notice"' in line]
    assert any("yours alone" in text and "whimbrel.db (0644)" in text for text in notices), ran.stdout
    assert mode(data) == 0o700 and mode(data / "whimbrel.db") == 0o600


def test_a_rotated_log_stays_private(tmp_path, open_umask):
    handler = error_log.PrivateLogHandler(tmp_path / "whimbrel.log", maxBytes=200, backupCount=2, encoding="utf-8")
    try:
        for i in range(20):
            handler.emit(logging.LogRecord("whimbrel", logging.ERROR, __file__, 1, f"line {i} " + "x" * 40, (), None))
    finally:
        handler.close()
    files = sorted(tmp_path.glob("whimbrel.log*"))
    assert [f.name for f in files] == ["whimbrel.log", "whimbrel.log.1", "whimbrel.log.2"]
    assert all(mode(f) == 0o600 for f in files)
