"""The shell reader: compound lines split into simple commands, quotes kept apart, wrappers seen through."""

from __future__ import annotations

import pytest

from app.permissions.shell import Unparseable, parse
from app.permissions.wrappers import effective_commands


def argvs(line: str) -> list[list[str]]:
    return [c.argv for c in effective_commands(parse(line))]


@pytest.mark.parametrize("line, expected", [
    ("git status", [["git", "status"]]),
    ("git status && rm -rf build", [["git", "status"], ["rm", "-rf", "build"]]),
    ("a || b; c | d |& e & f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),
    ("(cd x; make) && { ls; }", [["cd", "x"], ["make"], ["ls"]]),
    ("echo $(rm -rf /tmp/x) done", [["rm", "-rf", "/tmp/x"], ["echo", "$(rm -rf /tmp/x)", "done"]]),
    ("echo `id`", [["id"], ["echo", "`id`"]]),
    ('echo "a $(whoami) b"', [["whoami"], ["echo", "a $(whoami) b"]]),
    ("grep 'rm -rf' notes.md", [["grep", "rm -rf", "notes.md"]]),
    ("cat <(curl x)", [["curl", "x"], ["cat"]]),
    ("ls # && rm -rf /", [["ls"]]),
    ("line1\nline2", [["line1"], ["line2"]]),
])
def test_compound_lines_split_into_simple_commands(line, expected):
    assert argvs(line) == expected


@pytest.mark.parametrize("line, expected", [
    ("sudo rm -rf build", ["rm", "-rf", "build"]),
    ("sudo -u bob git status", ["git", "status"]),
    ("timeout 5 git status", ["git", "status"]),
    ("timeout -s KILL 5s make test", ["make", "test"]),
    ("env A=b C=d npm test", ["npm", "test"]),
    ("nice -n 10 make", ["make"]),
    ("xargs -n 1 rm", ["rm"]),
    ("time pytest -q", ["pytest", "-q"]),
    ("command ls", ["ls"]),
    ("FOO=1 BAR=2 make", ["make"]),
    ("sudo timeout 3 env X=1 nice rm x", ["rm", "x"]),
    ("bash -c 'git status && rm -rf x'", None),
])
def test_wrappers_are_seen_through(line, expected):
    found = argvs(line)
    if expected is None:
        assert found == [["git", "status"], ["rm", "-rf", "x"]]
    else:
        assert found == [expected]


def test_sudo_is_kept_as_a_wrapper():
    [command] = effective_commands(parse("sudo timeout 5 rm x"))
    assert command.wrappers == ["sudo", "timeout"]


def test_quoted_star_is_marked_quoted():
    [command] = parse("ls '*' *")
    quoted, bare = command.words[1], command.words[2]
    assert quoted.text == bare.text == "*"
    assert quoted.parts[0].quoted and not bare.parts[0].quoted


def test_redirections_are_kept_apart():
    [command] = parse("echo hi > out.txt 2>&1 < in.txt")
    assert command.argv == ["echo", "hi"]
    assert [(op, w.text) for op, w in command.redirects] == [(">", "out.txt"), ("<", "in.txt")]


@pytest.mark.parametrize("line", [
    "echo 'open", 'echo "open', "cat <<EOF\nx\nEOF", "if true; then ls; fi", "for x in a; do rm $x; done",
    "echo $(ls", "(ls", "ls)", "echo `ls", "bash -c \"$CMD\"", "case x in a) ;; esac",
])
def test_what_cannot_be_read_raises(line):
    with pytest.raises(Unparseable):
        effective_commands(parse(line))
