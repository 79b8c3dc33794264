"""`touched`: the paths a bash line writes and reads, and what only running it would tell."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.permissions.shell_access import touched


@pytest.mark.parametrize("command, writes, reads", [
    ("make test &>/dev/null", [], []),
    ("echo PWNED=1 > .env", [".env"], []),
    ("ls > f 2>&1", ["f"], []),
    ("a >|g 3>h >&i &>>j < in", ["g", "h", "i", "j"], ["in"]),
    ("{ ls; pwd; } > out", ["out"], []),
    ("cp a b dest/", ["dest"], ["a", "b"]),
    ("mv -t d a b", ["d", "a", "b"], []),
    ("sed -i s/a/b/ f g", ["f", "g"], []),
    ("sed -e s/a/b/ f", [], ["f"]),
    ("dd if=src.img of=disk.img", ["disk.img"], ["src.img"]),
    ("sudo tee -a hosts < in", ["hosts"], ["in"]),
    ("cat .env | head -n 3 x", [], [".env", "x"]),
    ("chmod +x run.sh", ["run.sh"], []),
    ("source ./env.sh; . other.sh", [], ["env.sh", "other.sh"]),
    ("touch a && rm b && truncate -s 0 c && ln -s x y && install -m 755 s t", ["a", "b", "c", "y", "t"], ["x", "s"]),  # a link's target counts as read
    ("grep -r pattern src", [], ["src"]),
    ("curl -o page.html https://x", ["page.html"], []),
    ("echo $(touch inner)", ["inner"], []),
    ("timeout 5 env A=1 rm sub/../z", ["z"], []),
])
def test_writes_and_reads(tmp_path, command, writes, reads):
    found = touched(command, tmp_path)
    assert found.writes == [(tmp_path / w).resolve() for w in writes]
    assert found.reads == [(tmp_path / r).resolve() for r in reads]
    assert found.unknown == []


@pytest.mark.parametrize("command, words", [
    ("echo x > ~/.bashrc", "starts with ~"), ("echo x > ~+/../x", "starts with ~"),
    ("echo > $HOME/.bashrc", "holds an expansion"), ("echo > $PWD/../x", "holds an expansion"),
    ('touch "$(pwd)/x"', "holds an expansion"), ("rm *.o", "glob pattern"), ("rm {a,.git/x}", "brace expansion"),
    ("$EDITOR notes", "only known when it runs"), ("cat <>f", "could not be read"),
    ("dd of=$OUT", "holds an expansion"), ("cp a ${DEST:-/etc}", "holds an expansion"),
])
def test_what_only_running_tells_is_unknown(tmp_path, command, words):
    found = touched(command, tmp_path)
    assert any(words in reason for reason in found.unknown), found


def test_a_link_is_seen_as_what_it_points_to(tmp_path):
    (tmp_path / ".env").write_text("KEY=1")
    (tmp_path / "innocent").symlink_to(tmp_path / ".env")
    assert touched("echo x >> innocent", tmp_path).writes == [(tmp_path / ".env").resolve()]


def test_absolute_and_outside_paths(tmp_path):
    found = touched("cp notes.md /etc/motd; cat ../../secret", tmp_path / "ws")
    assert Path("/etc/motd") in found.writes
    assert (tmp_path / "ws" / "../../secret").resolve() in found.reads
