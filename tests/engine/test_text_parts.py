"""TextParts keeps a streamed reply as one string and hands out its tail after any offset."""

from __future__ import annotations

import gc
import sys

from app.engine.text_parts import CHUNK, TextParts


def test_text_and_every_tail_match_the_pieces_across_chunk_boundaries() -> None:
    parts, pieces = TextParts(), [f"{n:05d}|" * (n % 7 + 1) for n in range(40_000)]
    offsets = []
    for piece in pieces:
        parts.append(piece)
        offsets.append(parts.size)
    whole = "".join(pieces)
    for offset in (0, 1, CHUNK - 1, CHUNK, CHUNK + 3, offsets[20_000], len(whole) - 1, len(whole), len(whole) + 5):
        assert parts.since(offset) == whole[offset:]
    assert parts.text() == whole and parts.size == len(whole)
    assert not TextParts() and parts


def strings_held(*roots: object) -> int:
    """Bytes of the distinct strings reachable from `roots` through their attributes, lists and dicts."""
    seen: set[int] = set()
    total, todo = 0, list(roots)
    while todo:
        value = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, str):
            total += sys.getsizeof(value)
        elif isinstance(value, (list, tuple, dict)):
            todo.extend(gc.get_referents(value))
        elif hasattr(value, "__dict__") and not isinstance(value, type):
            todo.append(vars(value))
    return total


def test_the_text_is_held_once_and_handed_out_without_a_copy() -> None:
    """The reply's text is one string (not chunks plus a joined copy at the end of the reply), and
    `text()` is that string: asking twice gives the same object, and it takes the text's own size."""
    parts = TextParts()
    for _ in range(3 * CHUNK // 100 + 7):
        parts.append("word " * 20)
    text = parts.text()
    assert parts.text() is text
    assert strings_held(parts, text) < len(text) + 1000  # the text once, nothing else of its size
    parts.append("more")
    assert parts.text() == text + "more" and parts.since(len(text)) == "more"
