"""The gate judges `watch` per action: list and cancel run unasked; create is judged as the bash
command it will poll (its rules, its risk, the mode), so a watch is no way around a bash rule."""

from __future__ import annotations

import pytest

from app.permissions.gate import CallView, Gate
from app.permissions.policy import Policy
from app.permissions.rules import Rule


def watch(**args) -> CallView:
    return CallView("watch", args, primary="command")


def gate(tmp_path, mode="ask", rules=()) -> Gate:
    return Gate(Policy(list(rules), [], tmp_path), mode, sandboxed=True)


@pytest.mark.parametrize("action", ["list", "cancel"])
def test_list_and_cancel_run_unasked_in_ask_mode(tmp_path, action):
    assert gate(tmp_path).decide(watch(action=action, name="w")).outcome == "allow"


@pytest.mark.parametrize("args", [{"command": "stat -c %s build.log"}, {"action": "create", "command": "ls"}])
def test_create_asks_in_ask_mode(tmp_path, args):
    verdict = gate(tmp_path).decide(watch(**args))
    assert verdict.outcome == "ask" and "no rule allows `" in verdict.why


def test_a_bash_deny_rule_denies_the_watch_of_that_command(tmp_path):
    verdict = gate(tmp_path, "auto", [Rule("bash(curl *)", "deny")]).decide(watch(command="curl https://x/status"))
    assert verdict.outcome == "deny"


def test_a_bash_allow_rule_lets_the_watch_of_that_command_run(tmp_path):
    assert gate(tmp_path, "ask", [Rule("bash(git status)", "allow")]).decide(watch(command="git status")).outcome \
        == "allow"


def test_a_critical_command_needs_an_override_even_in_auto_mode(tmp_path):
    verdict = gate(tmp_path, "auto").decide(watch(command="rm -rf / --no-preserve-root"))
    assert verdict.outcome == "ask" and verdict.needs_override


def test_plan_mode_refuses_a_watch(tmp_path):
    assert gate(tmp_path, "plan").decide(watch(command="make build")).outcome == "deny"
