"""What every end-to-end test needs: the installed `whimbrel` program, the marks that skip without it
(and bound a test's time), and a fresh workspace and data directory."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

WHIMBREL = str(Path(sys.executable).parent / "whimbrel")
NEEDS_WHIMBREL = pytest.mark.skipif(not Path(WHIMBREL).exists(),
                                    reason="install the project: pip install -e '.[test]'")


def e2e_marks(timeout: float = 180) -> list[pytest.MarkDecorator]:
    """A module's `pytestmark`: generous for a cold start on a two-core CI machine, skipped uninstalled."""
    return [pytest.mark.timeout(timeout), NEEDS_WHIMBREL]


def places(tmp_path: Path) -> tuple[Path, Path]:
    """A new, empty workspace and a data directory (created by the app) under `tmp_path`."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    return workdir, tmp_path / "data"
