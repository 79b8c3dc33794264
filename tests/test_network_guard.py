"""The network guard of tests/network_guard.py: a test that looks up or connects past this machine
fails, naming the address, even when it catches the error; loopback traffic passes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.network_guard import is_local

ROOT = Path(__file__).resolve().parent.parent

SAMPLE = '''
import socket, threading

def test_looks_up_a_name():
    try:
        socket.create_connection(("example.com", 80), timeout=5)
    except OSError:
        pass  # swallowed: the guard still fails the test

def test_connects_to_an_address():
    with socket.socket() as sock:
        sock.settimeout(5)
        assert sock.connect_ex(("203.0.113.7", 443)) != 0

def test_talks_to_this_machine():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
    socket.create_connection(("localhost", port), timeout=5).close()
    server.close()
'''


def test_reaching_past_this_machine_fails_the_test_and_names_the_address(tmp_path: Path):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rE", "-p", "tests.network_guard", "-p", "no:cacheprovider",
         "test_sample.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "3 passed, 2 errors" in out, out
    assert "ERROR test_sample.py::test_looks_up_a_name" in out and "ERROR test_sample.py::test_connects_to_an_address" in out
    assert "this test tried to reach the network: a name lookup of 'example.com'" in out
    assert "this test tried to reach the network: a connection to 203.0.113.7:443" in out


@pytest.mark.parametrize(("host", "local"), [
    ("localhost", True), ("127.0.0.1", True), ("::1", True), (b"127.0.0.2", True), ("0.0.0.0", True), (None, True),
    ("api.openai.com", False), ("10.0.0.1", False), ("2001:db8::1", False)])
def test_what_counts_as_this_machine(host, local):
    assert is_local(host) is local


def test_this_suite_is_guarded():
    assert socket.getaddrinfo.__module__ == socket.socket.connect.__module__ == "tests.network_guard"
