"""app/vocabulary/inert.py: control characters from outside are shown, never obeyed."""

from __future__ import annotations

import unicodedata

from app.vocabulary.inert import BIDI_CONTROLS, inert


def obeyable(text: str) -> list[str]:
    """Characters a terminal would act on, or that reorder what it shows."""
    return [c for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t" or ord(c) in BIDI_CONTROLS]


def test_escape_sequences_are_shown_with_a_visible_escape():
    assert inert("\x1b[2J\x1b[H") == "␛[2J␛[H"
    assert inert("\x1b]0;TITLE\x07") == "␛]0;TITLE␇"
    assert inert("\x1b]52;c;aGk=\x1b\\") == "␛]52;c;aGk=␛\\"


def test_every_c0_control_becomes_its_control_picture():
    controls = "".join(chr(code) for code in range(0x20) if chr(code) not in "\n\t")
    shown = inert(controls)
    assert [unicodedata.name(c) for c in shown[:3]] == ["SYMBOL FOR NULL", "SYMBOL FOR START OF HEADING",
                                                        "SYMBOL FOR START OF TEXT"]
    assert len(shown) == len(controls) and not obeyable(shown)


def test_del_c1_and_bidi_overrides_are_visible():
    text = "a\x7fb\x9b31mc\u202eexe.txt\u2066d\u2069"
    shown = inert(text)
    assert shown == "a␡b\ufffd31mc\ufffdexe.txt\ufffdd\ufffd"
    assert not obeyable(shown)


def test_multiline_text_keeps_lines_and_tabs_and_loses_the_cr_of_crlf():
    assert inert("one\r\ntwo\tthree\rfour\n") == "one\ntwo\tthree␍four\n"


def test_single_line_text_shows_line_breaks_and_tabs():
    assert inert("title\nsecond\tline\r", multiline=False) == "title␊second␉line␍"
    assert inert("a\u2028b", multiline=False) == "a␤b"


def test_printable_text_is_unchanged_and_inert_is_idempotent():
    text = "Grüße, 世界 — `code` [bold]not markup[/] 🐦\n\tindented"
    assert inert(text) == text
    hostile = "\x1b[31mred\x9b\u202e\x00"
    assert inert(inert(hostile)) == inert(hostile)
