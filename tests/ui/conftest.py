"""Fixtures shared by the Pilot tests of windows that share a store."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.fixture
def other_window():
    """A live process standing in for another Whimbrel window; `.kill()` makes it gone."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield process
    process.kill()
    process.wait()
