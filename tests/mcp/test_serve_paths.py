"""Through the real `whimbrel mcp serve` process and the real MCP SDK client: redirections are edits and path
rules bind every tool there too. `--allow 'bash(echo *)'` does not write `.env`, nor another file without an
edit rule (and the refusal's advice, followed literally, lets it); `--deny 'read(.env)'` refuses read_file,
search leaves the file out, and a recursive grep over the folder holding it is refused."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.mcp.test_serve import stdio_params

SECRET = "API_TOKEN=sk-live-0123456789abcdef\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".env").write_text(SECRET)
    (root / "notes.md").write_text("API_TOKEN is in the env file\n")
    return root


async def serve_calls(workspace: Path, flags: list[str], calls: list[tuple[str, dict]]) -> list[tuple[str, bool]]:
    from mcp import Client

    params = stdio_params(workspace, "--tools", "bash,read_file,search", *flags)
    out = []
    async with Client(params, read_timeout_seconds=60) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            out.append((result.content[0].text, bool(result.is_error)))
    return out


async def test_an_echo_rule_does_not_write_env_and_path_rules_bind_every_tool(workspace):
    flags = ["--allow", "bash(echo *),bash(grep *)", "--deny", "read(.env)"]
    (env_write, env_err), (out_write, out_err), (read, read_err), (found, found_err), (grep, grep_err), \
        (plain, plain_err) = await serve_calls(workspace, flags, [
            ("bash", {"command": "echo PWNED=1 > .env"}), ("bash", {"command": "echo hi > out.txt"}),
            ("read_file", {"path": ".env"}), ("search", {"pattern": "API_TOKEN", "path": "."}),
            ("bash", {"command": "grep -r API_TOKEN ."}), ("bash", {"command": "grep API_TOKEN notes.md"})])
    assert (workspace / ".env").read_text() == SECRET and not (workspace / "out.txt").exists()
    assert env_err and "secret" in env_write, env_write
    assert out_err and "--allow 'edit(out.txt)'" in out_write and "--mode accept-edits" in out_write, out_write
    assert read_err and "sk-live" not in read and "read(.env)" in read
    assert not found_err and "sk-live" not in found and found.startswith("notes.md:1:")
    assert "1 file not searched" in found and "denied by deny read(.env)" in found
    assert grep_err and "sk-live" not in grep and "recursively" in grep
    assert not plain_err and "API_TOKEN is in the env file" in plain


async def test_following_the_serve_advice_for_a_redirection_writes_the_file(workspace):
    [(text, error)] = await serve_calls(workspace, ["--allow", "bash(echo *)"],
                                        [("bash", {"command": "echo hi > out.txt"})])
    assert error and not (workspace / "out.txt").exists()
    flags, mode = re.search(r"with (--allow \S+) \(writing a file is an edit\) or (--mode accept-edits)", text).groups()
    for extra in (shlex.split(flags), shlex.split(mode)):
        (workspace / "out.txt").unlink(missing_ok=True)
        [(text, error)] = await serve_calls(workspace, ["--allow", "bash(echo *)", *extra],
                                            [("bash", {"command": "echo hi > out.txt"})])
        assert not error, text
        assert (workspace / "out.txt").read_text() == "hi\n"
