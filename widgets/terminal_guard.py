"""Every piece of text a widget shows is made inert (app/vocabulary/inert.py) as it enters the widget.

All text on a Textual screen enters as a Rich `Text` or a Textual `Content`, whoever built it: our
widgets, Markdown blocks, collapsible titles, toasts, tables, option lists. Both constructors (and
`Text.append`) already pass the text through one translate table to drop a few control codes (BEL,
BS, VT, FF, CR) and let the rest, ESC and C1 included, through to the terminal. `install` adds the
inert replacements to those two tables, so no widget, ours or Textual's, can emit a control sequence
and the user sees `␛[2J` instead (BEL, BS, VT and FF are shown as ␇ ␈ ␋ ␌ now, no longer dropped;
CR stays dropped, as before).

These tables are private to Rich and Textual (widgets/textual_internals.py reaches them); tests/ui/test_inert_text.py pins both against the
installed versions, so an upgrade that renames one fails there by name.
"""

from __future__ import annotations

from app.vocabulary.inert import MULTILINE_TABLE
from widgets.textual_internals import control_code_tables

CARRIAGE_RETURN = 0x0D  # still dropped: a CRLF line end would otherwise end every line with ␍


def install() -> None:
    """Make every Text and Content built from now on inert (idempotent)."""
    for table in control_code_tables():
        table.update({code: shown for code, shown in MULTILINE_TABLE.items() if code != CARRIAGE_RETURN})
