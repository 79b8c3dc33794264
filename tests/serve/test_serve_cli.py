"""`whimbrel serve`'s refusals: each a clear message and exit code 2, nothing served."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.serve.cli import is_loopback
from app.serve.guard import Guard, TokenFileError, origin_of, read_token


def _serve(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", "serve", *argv], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_an_address_other_machines_reach_needs_allow_remote() -> None:
    result = _serve("--host", "0.0.0.0", "--port", "0")
    assert result.returncode == 2
    assert "--allow-remote" in result.stderr and "TLS" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("content, words", [(None, "No such file"), ("short\n", "at least 16"), ("", "at least 16")])
def test_a_bad_token_file_is_refused(tmp_path: Path, content: str | None, words: str) -> None:
    path = tmp_path / "token"
    if content is not None:
        path.write_text(content)
    result = _serve("--port", "0", "--token-file", str(path))
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr
    with pytest.raises(TokenFileError):
        read_token(path)


def test_a_token_file_gives_the_token(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("  a-token-of-twenty-chars \nsecond line\n")
    assert read_token(path) == "a-token-of-twenty-chars"


def test_a_mistyped_window_option_stops_before_serving() -> None:
    result = _serve("--port", "0", "--", "--modle", "m")
    assert result.returncode == 2 and "--modle" in result.stderr and "Whimbrel is served" not in result.stdout
    result = _serve("--port", "0", "--model", "m")
    assert result.returncode == 2 and "after `--`" in result.stderr


def test_loopback_and_origins() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.1.2.3")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.com")
    assert origin_of("https://Whimbrel.example:443/x") == "https://whimbrel.example"
    assert origin_of("http://[::1]:8765") == "http://[::1]:8765"
    guard = Guard(token="t" * 20, public_url="https://whimbrel.example")
    assert guard.origin == "https://whimbrel.example" and guard.first_url() == "https://whimbrel.example/?token=" + "t" * 20
