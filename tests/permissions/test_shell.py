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
    ("cat <(curl x)", [["curl", "x"], ["cat", "<(curl x)"]]),  # a word: bash passes /dev/fd/N
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


@pytest.mark.parametrize("line, expected", [
    ("cat <<EOF\n$(rm y) $z\nEOF", [["cat"], ["rm", "y"]]),
    ("cat <<'EOF'\n$(rm y)\nEOF", [["cat"]]),
    ("if true; then ls; else rm x; fi", [["true"], ["ls"], ["rm", "x"]]),
    ("for x in a $(b); do rm $x; done", [["b"], [], ["rm", "$x"]]),
    ("case x in a) rm y;; esac", [["rm", "y"]]),
    ("while read l; do echo $l; done < in", [["read", "l"], ["echo", "$l"]]),
    ("f() { rm x; }; f", [[], ["rm", "x"], ["f"]]),
    ("echo ${x:-$(rm x)}", [["rm", "x"], ["echo", "${x:-$(rm x)}"]]),
    ("echo ${a[$(touch p)]}", [["touch", "p"], ["echo", "${a[$(touch p)]}"]]),
    ("echo $(( $(rm x) ))", [["rm", "x"], ["echo", "$(( $(rm x) ))"]]),
    ("echo $'\\'' ; rm x #'", [["echo", "'"], ["rm", "x"]]),
    ("echo $'a\\x41\\n' r\\m \"a\\\"b\"", [["echo", "aA\n", "rm", 'a"b']]),
    ("eval 'rm x'", [["rm", "x"]]),
    ("coproc rm x", [["rm", "x"]]),
    ("echo a \\\n  b", [["echo", "a", "b"]]),
    ("echo `echo \\`rm x\\``", [["rm", "x"], ["echo", "`rm x`"], ["echo", "`echo \\`rm x\\``"]]),
    ("echo `echo \\\\\\`rm y\\\\\\``", [["echo", "`rm", "y`"], ["echo", "`echo \\\\\\`rm y\\\\\\``"]]),
    ("find . -exec rm {} \\; -ok touch p +", [["find", ".", "-exec", "rm", "{}", ";", "-ok", "touch", "p", "+"],
                                            ["rm", "{}"], ["touch", "p"]]),
    ("busybox sh -c 'rm z'", [["rm", "z"]]),
    ("trap 'rm t' EXIT", [["rm", "t"]]),
])
def test_every_command_bash_would_run_is_found(line, expected):
    assert argvs(line) == expected


@pytest.mark.parametrize("line, reason", [
    ("echo ${x:-$(rm x)}", "operator or index"),
    ("echo $(date)", "runs a command"),
    ("echo `date`", "runs a command"),
    ("echo $((1+2))", "arithmetic"),
    ("cat <(ls)", "process substitution"),
    ("f() { ls; }", "defines the function"),
    ("[[ $x -eq 1 ]]", "arithmetic"),
    ("GIT_CONFIG_COUNT=1 git status", "GIT_CONFIG_COUNT"),
    ("env LD_PRELOAD=x.so ls", "LD_PRELOAD"),
    ("PAGER='sh -c x' man ls", "PAGER"),
    ("$CMD x", "only known when it runs"),
    ("eval ls", "eval"),
    ("cat <<EOF\n$(id)\nEOF", "here-document"),
    ("x[$(id)]=1", "array element"),
    ("(( x = 1 ))", "arithmetic"),
    ("test -v 'a[$(id)]'", "array subscript"),
    ("/???/r? x", "only known when it runs"),
    ("mapfile -C cb x", "callback"),
])
def test_opaque_commands_say_why(line, reason):
    found = [r for c in effective_commands(parse(line)) for r in c.opaque]
    assert any(reason in r for r in found), found


@pytest.mark.parametrize("line", ["echo hi", "git status", "ls -la src", "FOO=1 make", "echo $HOME \"$1\" ${x}",
                                  "cat 'a b' > out 2>&1", "make test &>/dev/null"])
def test_plain_commands_are_not_opaque(line):
    assert all(not c.opaque for c in effective_commands(parse(line)))


def test_redirect_operators_and_targets():
    [command] = parse("a >|g 3>h >&i 2>&1 &>>j 1<&3 2>&- < in &> all >> log")
    assert [(op, w.text) for op, w in command.redirects] == [
        (">|", "g"), (">", "h"), (">&", "i"), ("&>>", "j"), ("<", "in"), ("&>", "all"), (">>", "log")]
    [group, other] = parse("{ ls; pwd; } > out")
    assert group.redirects == other.redirects and group.redirects[0][1].text == "out"


@pytest.mark.parametrize("target, unknown", [("out.txt", False), ("$HOME/.bashrc", True), ("~/.bashrc", True),
                                             ("~+/../x", True), ("$PWD/../x", True), ("'~/x'", False),
                                             ("*.txt", True), ("{a,b}", True), ("$(pwd)/x", True)])
def test_a_target_with_an_expansion_is_unknown(target, unknown):
    [command] = [c for c in parse(f"echo x > {target}") if c.argv[:1] == ["echo"]]
    assert bool(command.redirects[0][1].unknown) is unknown


@pytest.mark.parametrize("line", [
    "echo 'open", 'echo "open', "echo $(ls", "(ls", "ls)", "echo `ls", "bash -c \"$CMD\"", "a <>f", "r\\\nm x", "! { rm x; }",
    "x" * 200_000, "echo " + "$(" * 200 + "x" + ")" * 200,
])
def test_what_cannot_be_read_raises(line):
    with pytest.raises(Unparseable):
        effective_commands(parse(line))
