"""Held output (widgets/held_output.py) handed out a few KB at a time keeps every character, in order,
and leaves the rest of the backlog as the pieces it arrived in (no copy of megabytes per release)."""

from __future__ import annotations

from widgets.held_output import HeldOutput


def test_partial_takes_keep_every_character_in_order_and_leave_the_rest_unjoined() -> None:
    first, second = object(), object()  # stand-ins for two replies' AssistantMessages
    held = HeldOutput()
    pieces = [f"piece{n:03d} " for n in range(200)]  # 9 characters each
    for piece in pieces:
        held.add(first, "content", piece)
    held.add(second, "reasoning", "thinking")
    untouched = held._runs[0].texts[-1]

    got: list[tuple[object, str, str]] = []
    while held:
        for run in held._take(25):
            got.append((run.message, run.kind, "".join(run.texts)))
        if held and held._runs[0].message is first:
            assert held._runs[0].texts[-1] is untouched, "the backlog's tail is the piece as it arrived"
    assert "".join(text for message, _, text in got if message is first) == "".join(pieces)
    assert [(kind, text) for message, kind, text in got if message is second] == [("reasoning", "thinking")]
    assert got[-1][0] is second, "the second reply's text comes after all of the first's"
