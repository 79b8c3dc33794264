"""Property tests of the matcher: a compound line is allowed iff each part is; quoting; wrappers; paths."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from app.permissions.policy import CallFacts, Policy
from app.permissions.rules import Rule
from app.permissions.suggest import quote_word

WS = Path("/tmp/whimbrel-prop-ws")
NAMES = st.sampled_from(["git", "ls", "make", "npm", "cat", "rm", "echo", "pytest"])
ARGS = st.text(alphabet="abcxyz-_./*", min_size=1, max_size=6)
COMMANDS = st.tuples(NAMES, st.lists(ARGS, max_size=3)).map(lambda t: [t[0], *t[1]])
OPERATORS = st.sampled_from([" && ", " || ", "; ", " | ", "\n"])
ALLOWED = [["git", "status"], ["make"], ["ls", "-la"]]
POLICY = Policy([Rule("bash(git status)", "allow"), Rule("bash(make)", "allow"), Rule("bash(ls -la)", "allow")],
                [], WS)


def line(argv: list[str]) -> str:
    return " ".join(quote_word(a) for a in argv)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(COMMANDS, st.sampled_from(ALLOWED)), min_size=1, max_size=4), st.data())
def test_a_compound_line_is_allowed_iff_every_part_is(parts, data):
    joined = line(parts[0])
    for part in parts[1:]:
        joined += data.draw(OPERATORS) + line(part)
    verdict = POLICY.decide(CallFacts("bash", command=joined)).decision
    assert (verdict == "allow") == all(part in ALLOWED for part in parts), joined


@settings(max_examples=200, deadline=None)
@given(COMMANDS)
def test_a_command_matches_its_own_quoted_exact_rule_and_nothing_longer(argv):
    rule = Rule(f"bash({line(argv)})", "allow")
    policy = Policy([rule], [], WS)
    assert policy.decide(CallFacts("bash", command=line(argv))).decision == "allow"
    assert policy.decide(CallFacts("bash", command=line(argv) + " extra")).decision is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abc*", min_size=1, max_size=5))
def test_a_quoted_star_only_matches_itself(word):
    policy = Policy([Rule(f"bash(echo {quote_word(word)})", "allow")], [], WS)
    assert policy.decide(CallFacts("bash", command=f"echo {quote_word(word)}")).decision == "allow"
    other = word.replace("*", "Q") + "Z"
    assert policy.decide(CallFacts("bash", command=f"echo {other}")).decision is None


@settings(max_examples=200, deadline=None)
@given(COMMANDS, st.lists(st.sampled_from(["sudo", "timeout 5", "env A=1", "nice", "time", "command", "nohup"]),
                          max_size=3))
def test_wrappers_never_change_the_decision(argv, wrappers):
    policy = Policy([Rule(f"bash({line(argv)})", "deny")], [], WS)
    wrapped = " ".join(wrappers + [line(argv)])
    assert policy.decide(CallFacts("bash", command=wrapped)).decision == "deny", wrapped


SEGMENTS = st.lists(st.sampled_from(["src", "lib", ".", "..", "deep"]), max_size=5)


@settings(max_examples=200, deadline=None)
@given(SEGMENTS)
def test_a_path_rule_sees_the_normalised_path(segments):
    written = "/".join([*segments, ".env"])
    resolved = Path(os.path.normpath(WS / written))
    policy = Policy([Rule("write_file(**/.env)", "deny")], [], WS)
    decision = policy.decide(CallFacts("write_file", paths=[resolved])).decision
    assert decision == "deny", written  # `**` spans any folder, outside the workspace too
    inside_only = Policy([Rule("write_file(src/**)", "allow")], [], WS)
    expected = "allow" if resolved.is_relative_to(WS / "src") else None
    assert inside_only.decide(CallFacts("write_file", paths=[resolved])).decision == expected, written
