"""TextParts keeps a streamed reply in a few large chunks and hands out its tail after any offset."""

from __future__ import annotations

from app.engine.text_parts import CHUNK, TextParts


def test_text_and_every_tail_match_the_pieces_across_chunk_boundaries() -> None:
    parts, pieces = TextParts(), [f"{n:05d}|" * (n % 7 + 1) for n in range(40_000)]
    offsets = []
    for piece in pieces:
        parts.append(piece)
        offsets.append(parts.size)
    whole = "".join(pieces)
    assert parts.text() == whole and parts.size == len(whole)
    assert len(parts._chunks) == len(whole) // CHUNK  # tokens are joined: a few chunks, not 40,000 strings
    for offset in (0, 1, CHUNK - 1, CHUNK, CHUNK + 3, offsets[20_000], len(whole) - 1, len(whole), len(whole) + 5):
        assert parts.since(offset) == whole[offset:]
    assert not TextParts() and parts
