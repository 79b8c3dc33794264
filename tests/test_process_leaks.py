"""The session check of tests/process_leaks.py: a run whose tests leave a process behind fails, names
the process and the test, and kills it; a run whose tests clean up passes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.e2e.processes import alive
from tests.process_leaks import MARK

ROOT = Path(__file__).resolve().parent.parent

LEAKY = '''
import subprocess

def test_leaves_a_child():
    subprocess.Popen(["sleep", "300"])

def test_leaves_a_grandchild():
    subprocess.run(["sh", "-c", "sleep 301 &"], check=True)

def test_leaves_an_unmarked_orphan():  # as the MCP SDK starts a stdio server: a filtered environment
    subprocess.run(["sh", "-c", "env -i /bin/sleep 302 &"], check=True)
'''

TIDY = '''
import subprocess

def test_waits_for_its_child():
    subprocess.run(["sleep", "0"], check=True)

def test_stops_its_child():
    proc = subprocess.Popen(["sleep", "300"])
    proc.terminate()
    proc.wait()
'''


def run_pytest(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess:
    """Run pytest with only the leak check as plugin on one test file, in its own process."""
    (tmp_path / "test_sample.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.process_leaks", "-p", "no:cacheprovider", *args,
         "test_sample.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def wait_until_dead(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_a_process_left_running_fails_the_run_is_named_and_killed(tmp_path: Path):
    result = run_pytest(tmp_path, LEAKY)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "3 passed" in out and "processes left running by tests" in out
    child = re.search(r"pid (\d+): sleep 300  \(started during test_sample.py::test_leaves_a_child\)", out)
    grandchild = re.search(r"pid (\d+): sleep 301  \(started during test_sample.py::test_leaves_a_grandchild\)",
                           out)
    orphan = re.search(r"pid (\d+): /bin/sleep 302  \(started during "
                       r"test_sample.py::test_leaves_an_unmarked_orphan\)", out)
    assert child and grandchild and orphan, out
    for found in (child, grandchild, orphan):
        assert wait_until_dead(int(found.group(1))), f"pid {found.group(1)} is still running"


def test_under_xdist_each_worker_s_stragglers_fail_the_run_and_are_named(tmp_path: Path):
    """The suite runs in parallel workers: what a worker's test leaves behind still fails the whole run."""
    result = run_pytest(tmp_path, LEAKY, "-p", "xdist.plugin", "-n", "2")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "3 passed" in out and "processes left running by tests" in out
    found = [re.search(rf"pid (\d+): {command}  \(started during test_sample.py::{test}, on worker gw\d\)", out)
             for command, test in (("sleep 300", "test_leaves_a_child"), ("sleep 301", "test_leaves_a_grandchild"),
                                   ("/bin/sleep 302", "test_leaves_an_unmarked_orphan"))]
    assert all(found), out
    for match in found:
        assert wait_until_dead(int(match.group(1))), f"pid {match.group(1)} is still running"


def test_under_xdist_a_tidy_run_passes(tmp_path: Path):
    result = run_pytest(tmp_path, TIDY, "-p", "xdist.plugin", "-n", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "processes left running" not in result.stdout


def test_a_run_whose_tests_stop_their_processes_passes(tmp_path: Path):
    result = run_pytest(tmp_path, TIDY)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "processes left running" not in result.stdout


def test_this_suite_marks_each_test_s_processes(request):
    """The check is wired into this suite: a child started here carries this test's id."""
    out = subprocess.run([sys.executable, "-c", f"import os; print(os.environ[{MARK!r}])"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith(f" {request.node.nodeid}")
