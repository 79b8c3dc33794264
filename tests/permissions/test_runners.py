"""Runners under allow rules (options and scripts that run commands or write files), code the reader cannot
follow (high risk, its string literals meet deny rules), and the files such options write."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.permissions.gate import CallView, Gate
from app.permissions.policy import Policy
from app.permissions.risk import assess_command
from app.permissions.rules import Rule
from app.permissions.shell_access import touched

READERS = [Rule(f"bash({name} *)", "allow") for name in ("git", "sed", "tar", "awk", "vim", "find", "man", "rsync")]


def decide(ws: Path, command: str, mode: str = "ask", rules=READERS):
    return Gate(Policy(list(rules), [], ws), mode).decide(CallView("bash", {"command": command}, primary="command"))


@pytest.mark.parametrize("command", [
    "git -c core.fsmonitor='touch m' status", "git -c alias.st='!touch m' st", "git --config-env=core.pager=X log",
    "git config core.pager 'touch m'", "git log --output=m", "sed -n '1e touch m' notes.md", "sed 's/.*/touch m/e' f",
    "sed -n 'w m' notes.md", "sed -f script.sed f", "tar xf a.tar --to-command='touch m'",
    "tar cf /dev/null f --checkpoint=1 --checkpoint-action=exec='touch m'", "tar -I 'sh -c x' -xf a", "tar xIf x a",
    "awk 'BEGIN{system(\"touch m\")}'", "awk 'BEGIN{print 1 > \"m\"}'", "awk '{print | \"sh\"}' f",
    "vim -es -c '!touch m' -c q", "vim +'!touch m' f", "nvim --cmd 'q' f", "find . -delete", "find . -fprint m",
    "man -P 'touch m' ls", "rsync -e 'sh -c x' a:b c",
])
def test_an_allow_rule_for_a_reader_does_not_vouch_for_what_runs_or_writes(tmp_path, command):
    verdict = decide(tmp_path, command)
    assert verdict.outcome == "ask", (command, verdict.why)
    assert "cannot be allowed by a rule" in verdict.why or "writes files it names itself" in verdict.why


@pytest.mark.parametrize("command", [
    "git status", "git log --oneline -5", "git config --get user.name", "git commit -m x",
    "sed 's/a/b/g' f", "sed -n '/foo/,/bar/p' f", "sed -e :a -e '$!N;s/\\n//;ta' f", "sed 'y/abc/xyz/' f",
    "awk '{print $1}' f", "awk '$3 > 100' f", "awk '/a|b/' f", "awk '{print \"a>b\"}' f", "tar xzf a.tgz",
    "find . -name '*.py'", "vim f", "man ls",
])
def test_plain_uses_of_the_same_programs_stay_allowed_and_low_risk(tmp_path, command):
    verdict = decide(tmp_path, command)
    assert verdict.outcome == "allow", (command, verdict.why)
    assert verdict.risk.level == "low"


def test_a_rule_that_spells_the_options_out_covers_exactly_that_command(tmp_path):
    rules = [Rule("bash(git -c core.pager=cat log)", "allow")]
    assert decide(tmp_path, "git -c core.pager=cat log", rules=rules).outcome == "allow"
    assert decide(tmp_path, "git -c core.pager=less log", rules=rules).outcome == "ask"


@pytest.mark.parametrize("command", [
    "python3 -c 'print(1)'", "perl -e 'print 1'", "node -e '1'", "ruby -e 'p 1'", "env -S 'ls -l'",
    "awk 'BEGIN{system(\"x\")}'", "echo x | sed 's/.*/ls/e'", "/usr/bin/ech? hi", "eval \"$X\"",
])
def test_code_the_reader_cannot_follow_is_high_risk_so_auto_mode_asks(tmp_path, command):
    assert assess_command(command, tmp_path).level == "high", command
    verdict = decide(tmp_path, command, mode="auto", rules=())
    assert verdict.outcome == "ask" and "cannot follow" in verdict.why, (command, verdict.why)


@pytest.mark.parametrize("command", [
    "python3 -c \"import os; os.system('touch m')\"", "python3 -c \"import subprocess; subprocess.run(['touch', 'm'])\"",
    "perl -e 'system(\"touch m\")'", "awk 'BEGIN{system(\"touch m\")}'", "echo x | sed 's|.*|touch m|e'",
    "env -S 'touch m'", "/usr/bin/tou?h m",
])
def test_deny_rules_see_commands_inside_inline_code_and_glob_names(tmp_path, command):
    rules = [Rule("bash(touch *)", "deny"), Rule("bash", "allow")]
    verdict = decide(tmp_path, command, mode="auto", rules=rules)
    assert verdict.outcome == "deny", (command, verdict.why)


def test_strings_that_are_not_commands_do_not_stop_an_allowed_interpreter(tmp_path):
    rules = [Rule("bash(python3 *)", "allow"), Rule("bash(touch *)", "deny")]
    assert decide(tmp_path, "python3 -c \"print('hello world')\"", rules=rules).outcome == "allow"


@pytest.mark.parametrize("command, written", [
    ("find sub -delete", "sub"), ("find . -name x -fprint out.txt", "out.txt"), ("sed -n 'w out.txt' f", "out.txt"),
    ("git log --output=out.txt", "out.txt"),
])
def test_files_these_options_write_are_reported(tmp_path, command, written):
    assert (tmp_path / written).resolve() in touched(command, tmp_path).writes


def test_an_awk_program_writing_files_makes_the_written_path_unknown(tmp_path):
    assert touched("awk 'BEGIN{print 1 > \"m\"}'", tmp_path).unknown
