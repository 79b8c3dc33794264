"""Every character the widgets on a screen render, and how hostile text must look there (inert-text tests)."""

from __future__ import annotations

import unicodedata

from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Collapsible

from app.vocabulary.inert import BIDI_CONTROLS

SHOWN_MARKS = ("␛[2J␛[H", "␛]0;PWNED␇", "\ufffdtxt.exe")  # how tests/hostile's HOSTILE must look on screen


def obeyable(text: str) -> list[str]:
    """Characters a terminal would act on (C0 but newline, DEL, C1), or that reorder what it shows."""
    return [c for c in text if (unicodedata.category(c) == "Cc" and c != "\n") or ord(c) in BIDI_CONTROLS]


async def rendered_by_widget(pilot) -> dict[Widget, str]:
    """What each widget on the screen renders: the text of every segment of its strips, a line per strip.

    Collapsed blocks (reasoning, tool cards) are expanded first, so their bodies render too.
    """
    screen = pilot.app.screen
    for collapsible in screen.query(Collapsible):
        collapsible.collapsed = False
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    rendered = {}
    for widget in [screen, *screen.query("*")]:
        if widget.display and widget.outer_size.area:  # border and padding included
            strips = widget.render_lines(Region(0, 0, *widget.outer_size))
            rendered[widget] = "\n".join("".join(segment.text for segment in strip) for strip in strips)
    return rendered


async def rendered_text(pilot) -> str:
    """Everything every widget on the screen renders (see `rendered_by_widget`)."""
    return "\n".join((await rendered_by_widget(pilot)).values())


async def assert_inert(pilot, *marks: str) -> str:
    """Fail if any widget on the screen renders a control character; each mark must be shown."""
    text = await rendered_text(pilot)
    assert not obeyable(text), f"control characters reached the screen: {sorted(set(obeyable(text)))}"
    for mark in marks:
        assert mark in text, f"{mark!r} is not shown"
    return text
