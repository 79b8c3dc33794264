"""The headless policy: deny rules, the workspace boundary, allow rules, then the mode."""

from __future__ import annotations

import pytest

from app.headless.policy import CallFacts, HeadlessPolicy, Rule, reads_only


def call(name: str, subject: str = "", *, read_only: bool = False, outside: tuple[str, ...] = ()) -> CallFacts:
    return CallFacts(name, subject, read_only, outside)


@pytest.mark.parametrize("text, rule", [
    ("bash", Rule("bash")), ("bash(git *)", Rule("bash", "git *")), (" write_file(docs/*) ", Rule("write_file", "docs/*")),
    ("mcp__git__*", Rule("mcp__git__*")), ("bash()", Rule("bash", "")),
])
def test_rules_parse(text, rule):
    assert Rule.parse(text) == rule


@pytest.mark.parametrize("text", ["", "(x)", "bash(git", "bash)", "  "])
def test_malformed_rules_are_refused_in_words(text):
    with pytest.raises(ValueError, match="malformed rule"):
        Rule.parse(text)


def test_a_rule_matches_tool_and_subject_as_globs():
    assert Rule.parse("bash(git *)").matches("bash", "git status")
    assert not Rule.parse("bash(git *)").matches("bash", "rm -rf .")
    assert Rule.parse("mcp__git__*").matches("mcp__git__log", "{}")
    assert not Rule.parse("bash").matches("bash_other", "ls")


@pytest.mark.parametrize("mode, name, subject, allowed", [
    ("ask", "read_file", "a.txt", True), ("ask", "write_file", "a.txt", False), ("ask", "bash", "make", False),
    ("plan", "write_file", "a.txt", False), ("plan", "bash", "ls -la", True), ("plan", "bash", "git log -3", True),
    ("accept-edits", "write_file", "a.txt", True), ("accept-edits", "edit_file", "a.txt", True),
    ("accept-edits", "bash", "make", False), ("auto", "bash", "make", True), ("auto", "write_file", "a", True),
])
def test_modes(mode, name, subject, allowed):
    verdict = HeadlessPolicy(mode).decide(call(name, subject, read_only=name in ("read_file", "search")))
    assert verdict.allowed is allowed
    assert verdict.reason  # an allowed call says why too (the approval event carries it)


def test_a_refusal_tells_the_model_how_the_user_could_allow_it():
    verdict = HeadlessPolicy("ask").decide(call("write_file", "x.txt"))
    assert "nobody can give it in a headless run" in verdict.reason and "--allow write_file" in verdict.reason


def test_deny_wins_over_allow_and_over_reading():
    policy = HeadlessPolicy("auto", allow=[Rule.parse("bash")], deny=[Rule.parse("bash(rm *)"), Rule.parse("read_file")])
    assert not policy.decide(call("bash", "rm -rf build")).allowed
    assert policy.decide(call("bash", "make")).allowed
    refused = policy.decide(call("read_file", "a.txt", read_only=True))
    assert not refused.allowed and "--deny read_file" in refused.reason


def test_allow_rules_open_single_commands_in_ask_mode():
    policy = HeadlessPolicy("ask", allow=[Rule.parse("bash(git *)")])
    assert policy.decide(call("bash", "git commit -m x")).allowed
    assert not policy.decide(call("bash", "make")).allowed


def test_outside_the_workspace_is_refused_in_every_mode_even_when_allowed():
    for mode in ("ask", "accept-edits", "plan", "auto"):
        policy = HeadlessPolicy(mode, allow=[Rule.parse("*")])
        verdict = policy.decide(call("read_file", "/etc/passwd", read_only=True, outside=("/etc/passwd",)))
        assert not verdict.allowed and "/etc/passwd" in verdict.reason


@pytest.mark.parametrize("command, only_reads", [
    ("ls", True), ("ls -la src", True), ("git status", True), ("grep -n foo app.py", True),
    ("ls; rm -rf .", False), ("cat a | sh", False), ("echo x > a.txt", False), ("cat $(which python)", False),
    ("git push", False), ("git", False), ("rm a", False), ("cat /etc/passwd", False), ("cat ../secret", False),
    ("ls ~", False), ("tail -n1 --file=/etc/hosts", False), ("echo `id`", False), ("ls\nrm x", False), ("", False),
])
def test_bash_commands_that_surely_only_read(command, only_reads):
    assert reads_only(command) is only_reads
