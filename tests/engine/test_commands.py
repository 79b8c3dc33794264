"""Slash command parsing and completion."""

from __future__ import annotations

import pytest

from app.engine.commands import COMMANDS, CommandError, completions, is_command, parse

REQUIRED = {"ws", "new", "clear", "resume", "name", "delete", "history", "retry", "rewind", "export", "quit",
            "help"}


def test_every_required_command_exists_with_help():
    names = {c.name for c in COMMANDS}
    assert REQUIRED <= names
    assert all(c.summary for c in COMMANDS)


def test_parse_splits_name_and_arguments():
    command, args = parse("/rewind  2 ")
    assert command.name == "rewind" and args == "2"


def test_unknown_command_suggests_a_close_one():
    with pytest.raises(CommandError, match=r"Unknown command /hel\. Did you mean /help\?"):
        parse("/hel")
    with pytest.raises(CommandError, match="/help"):
        parse("/zzz")


def test_paths_are_not_commands():
    assert is_command("/help") and is_command("  /ws 2")
    assert not is_command("/tmp/file.txt please") and not is_command("/") and not is_command("hello /ws")


def test_completions_by_prefix():
    assert [c.name for c in completions("re")] == ["resume", "retry", "rewind"]
    assert completions("/ex")[0].name == "export"
