"""A run of the suite leaves no temporary folders behind when it passes, and only the failed tests'
folders (their `tmp_path` and their isolated home) when it does not: one run once left 300 MB.

Each check runs pytest on two tiny test files with this suite's settings (pyproject.toml) and its
conftest (the isolated home every test gets), in two xdist workers as the README's command does, with
TMPDIR pointing into this test's own folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PASSING = """
import os
from pathlib import Path


def test_writes_its_folders(tmp_path):
    (tmp_path / "scratch.txt").write_text("written by a passing test")
    data = Path(os.environ["WHIMBREL_DATA_DIR"])  # the isolated home's data dir
    data.mkdir(parents=True)
    (data / "whimbrel.db").write_text("a store")
"""
FAILING = PASSING.replace("test_writes_its_folders", "test_fails") + "    assert False, 'fails on purpose'\n"


def run_pytest(tests: Path, tmpdir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # not this run's worker
    env.update(TMPDIR=str(tmpdir), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-c", str(ROOT / "pyproject.toml"),
                           "-p", "tests.conftest", str(tests)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=150, stdin=subprocess.DEVNULL)


def files_left(tmpdir: Path) -> list[Path]:
    return sorted(p.relative_to(tmpdir) for p in tmpdir.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.timeout(320)
def test_a_green_run_leaves_nothing_and_a_red_one_only_what_failed(tmp_path):
    tests, tmpdir = tmp_path / "tests", tmp_path / "tmp"
    tests.mkdir()
    tmpdir.mkdir()
    (tests / "test_one.py").write_text(PASSING)
    (tests / "test_two.py").write_text(PASSING.replace("its_folders", "its_folders_too"))

    green = run_pytest(tests, tmpdir)
    assert green.returncode == 0, green.stdout[-3000:] + green.stderr[-3000:]
    assert "2 passed" in green.stdout
    assert files_left(tmpdir) == []
    assert not list(tmpdir.glob("pytest-of-*/pytest-[0-9]*")), "the run's numbered folder is still there"

    (tests / "test_two.py").write_text(FAILING)
    red = run_pytest(tests, tmpdir)
    assert red.returncode == 1, red.stdout[-3000:] + red.stderr[-3000:]
    assert "1 failed, 1 passed" in red.stdout
    left = files_left(tmpdir)
    assert sorted(p.name for p in left) == ["scratch.txt", "whimbrel.db"], left  # the failed test's two, no more
    assert next(p for p in left if p.name == "scratch.txt").parent.name.startswith("test_fails")
