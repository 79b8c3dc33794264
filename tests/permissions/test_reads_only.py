"""Plan mode lets a bash command run only when it surely only reads (app/permissions/modes.reads_only)."""

from __future__ import annotations

import pytest

from app.permissions.modes import reads_only


@pytest.mark.parametrize("command, only_reads", [
    ("ls", True), ("ls -la src", True), ("git status", True), ("grep -n foo app.py", True),
    ("ls; rm -rf .", False), ("cat a | sh", False), ("echo x > a.txt", False), ("cat $(which python)", False),
    ("git push", False), ("git", False), ("rm a", False), ("cat /etc/passwd", False), ("cat ../secret", False),
    ("ls ~", False), ("tail -n1 --file=/etc/hosts", False), ("echo `id`", False), ("ls\nrm x", False), ("", False),
])
def test_bash_commands_that_surely_only_read(command, only_reads):
    assert reads_only(command) is only_reads
