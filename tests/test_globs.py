"""The one glob translation behind permission path rules and the search tool's --glob."""

import re

import pytest

from app.vocabulary.globs import glob_to_regex


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("src/**", "src/a/b.py", True),
        ("**/.env", ".env", True),
        ("**/.env", "deep/er/.env", True),
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),  # `*` stays within one segment
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("a.b", "axb", False),  # everything else is literal
        ("[ab].txt", "[ab].txt", True),  # no classes unless asked for
    ],
)
def test_globs_translate_segment_aware(glob: str, path: str, matches: bool) -> None:
    assert bool(re.fullmatch(glob_to_regex(glob), path)) is matches


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [("[ab].txt", "a.txt", True), ("[!ab].txt", "c.txt", True), ("[!ab].txt", "a.txt", False)],
)
def test_character_classes_where_the_caller_asks(glob: str, path: str, matches: bool) -> None:
    assert bool(re.fullmatch(glob_to_regex(glob, char_classes=True), path)) is matches
