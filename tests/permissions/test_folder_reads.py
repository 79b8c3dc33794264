"""A command that reads a whole folder (`grep -r`, `rg`, `find … -exec cat`, `tar c .`, `cp -r`, `xargs cat`)
reads every file inside it: when one of them is denied by a read path rule or is a secret, the call asks,
whatever allow rule covers the command; a folder that holds none is unaffected."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.permissions.gate import CallView, Gate
from app.permissions.policy import Policy
from app.permissions.rules import Rule
from app.permissions.shell_access import touched

ALLOW = [Rule(spec, "allow") for spec in ("bash(grep *)", "bash(rg *)", "bash(find *)", "bash(cat *)", "bash(tar *)",
                                          "bash(cp *)", "bash(zip *)", "bash(diff *)")]
DENY_SECRETS = Rule("read(**/secrets/**)", "deny")


def gate(ws: Path, mode: str = "ask", *extra: Rule) -> Gate:
    return Gate(Policy([*ALLOW, *extra], [], ws), mode)  # type: ignore[arg-type]


def sh(command: str) -> CallView:
    return CallView("bash", {"command": command}, primary="command")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for rel in ("src/app.py", "docs/guide.md", "config/secrets/db.txt", "config/app.toml"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    return root.resolve()


RECURSIVE = ["grep -r password .", "grep -rn password", "grep -R password config", "rg password",
             "rg -e password config", "find . -type f -exec cat {} +", "find config -exec grep -H x {} ;",
             "tar czf out.tgz .", "tar -cf - config", "cp -r . copy", "cp -a config c",
             "find . -type f | xargs cat", "zip -r o.zip config", "diff -r config docs"]


@pytest.mark.parametrize("command", RECURSIVE)
@pytest.mark.parametrize("mode", ["ask", "auto"])
def test_a_folder_holding_a_denied_file_asks(ws: Path, command: str, mode: str) -> None:
    verdict = gate(ws, mode, DENY_SECRETS).decide(sh(command))
    assert verdict.outcome == "ask", verdict.why
    assert "recursively" in verdict.why and "config/secrets/db.txt" in verdict.why


@pytest.mark.parametrize("command", ["grep -r password .", "rg password", "tar czf out.tgz .",
                                     "cp -r . copy", "find . -exec cat {} ;"])
@pytest.mark.parametrize("secret", [".env", "deploy/server.pem", "home/.ssh/id_rsa"])
def test_a_folder_holding_a_secret_asks(ws: Path, command: str, secret: str) -> None:
    (ws / secret).parent.mkdir(parents=True, exist_ok=True)
    (ws / secret).write_text("KEY=1\n")
    verdict = gate(ws).decide(sh(command))
    assert verdict.outcome == "ask" and "secret" in verdict.why, verdict.why


def test_plan_mode_asks_too(ws: Path) -> None:
    verdict = gate(ws, "plan", DENY_SECRETS).decide(sh("grep -r password ."))
    assert verdict.outcome != "allow" and "config/secrets/db.txt" in verdict.why


@pytest.mark.parametrize("command", ["grep -r password src docs", "rg password src", "grep password config/app.toml",
                                     "find src -exec cat {} ;", "tar czf o.tgz docs", "cp -r src copy",
                                     "find . -name '*.py'", "cat src/app.py"])
def test_a_folder_holding_no_denied_file_is_unaffected(ws: Path, command: str) -> None:
    (ws / ".env").write_text("KEY=1\n")
    verdict = gate(ws, "ask", DENY_SECRETS).decide(sh(command))
    assert verdict.outcome == "allow", verdict.why


def test_an_allow_rule_naming_the_secret_lets_the_folder_be_read(ws: Path) -> None:
    (ws / ".env").write_text("KEY=1\n")
    assert gate(ws, "ask", Rule("read(.env)", "allow")).decide(sh("grep -r KEY .")).outcome == "allow"


def test_a_deny_rule_on_the_command_still_refuses(ws: Path) -> None:
    verdict = gate(ws, "ask", DENY_SECRETS, Rule("bash(rg *)", "deny")).decide(sh("rg password"))
    assert verdict.outcome == "deny"


def test_what_each_reader_reads_whole() -> None:
    cwd = Path("/w")
    assert touched("grep -rn foo", cwd).folders == [cwd]
    assert touched("grep foo a b", cwd).folders == []
    assert touched("tar -czf out.tgz src", cwd).folders == [cwd / "src"]
    assert touched("tar -czf out.tgz src", cwd).writes == [cwd / "out.tgz"]
    assert touched("tar xf a.tar", cwd).folders == []
    assert touched("cp a b", cwd).folders == []
    assert touched("find src -name x", cwd).folders == []
    assert touched("git ls-files | xargs wc -l", cwd).folders == [cwd]


def test_tar_reads_where_its_minus_c_points(tmp_path: Path) -> None:
    cwd = tmp_path.resolve()
    assert touched("tar -C /etc -czf out.tgz .", cwd).folders == [Path("/etc").resolve()]
    assert touched("tar -C config -cf - .", cwd).folders == [cwd / "config"]
    assert touched("grep -d recurse foo src", cwd).folders == [cwd / "src"]


def test_tar_minus_c_into_a_folder_with_a_secret_asks(ws: Path) -> None:
    verdict = gate(ws, "ask", DENY_SECRETS).decide(sh("tar -C config -cf out.tar ."))
    assert verdict.outcome == "ask" and "config/secrets/db.txt" in verdict.why
