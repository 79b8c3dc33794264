"""Snapshot tests run in a temporary directory whose path has the same length on every machine.

The workspace path is in the system prompt, so its length moves the token count a status bar
shows; pytest's own numbered base directory (`pytest-0` on a fresh CI machine, `pytest-123` after
many runs) would make a baseline pass here and fail there.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="whimbrel-snapshot-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
