"""Text from outside (models, tools, files, MCP servers, history) made safe to show on a terminal.

A terminal obeys control characters: ESC starts a sequence that can clear the screen, retitle the
window or write the clipboard; C1 characters (U+0080-U+009F) do the same on some terminals; bidi
overrides make a command read differently from what runs. `inert` replaces each of them by one
visible character, so the user sees that something was there (`␛[2J`) and nothing is obeyed.

Every replacement is one character for one (only a CRLF line end loses its CR), so styled text (Rich
spans, Textual content) keeps its offsets. Only what is shown is made inert: the model and the tools
keep the real bytes.
"""

from __future__ import annotations

REPLACEMENT = "\N{REPLACEMENT CHARACTER}"  # for controls that have no picture of their own
BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))  # embeddings, overrides, isolates

# C0 controls become the Unicode control pictures (ESC -> ␛, BEL -> ␇ ...), DEL becomes ␡.
INERT_TABLE: dict[int, str] = {code: chr(0x2400 + code) for code in range(0x20)}
INERT_TABLE[0x7F] = "\N{SYMBOL FOR DELETE}"
INERT_TABLE.update({code: REPLACEMENT for code in range(0x80, 0xA0)})
INERT_TABLE.update({code: REPLACEMENT for code in BIDI_CONTROLS})
INERT_TABLE[0x2028] = INERT_TABLE[0x2029] = "\N{SYMBOL FOR NEWLINE}"  # line / paragraph separator

# Text shown on several lines keeps its line breaks and tabs.
MULTILINE_TABLE: dict[int, str] = {code: shown for code, shown in INERT_TABLE.items() if code not in (0x09, 0x0A)}


def inert(text: str, *, multiline: bool = True) -> str:
    """`text` with every control character shown as a visible one, never obeyed by the terminal.

    `multiline` keeps newlines and tabs (a reply, a file, command output) and drops the CR of a CRLF
    line end; single-line text (a title, a name, a status) shows them as ␊ ␉ ␍ too.
    """
    if multiline:
        return text.replace("\r\n", "\n").translate(MULTILINE_TABLE)
    return text.translate(INERT_TABLE)
