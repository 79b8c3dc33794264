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


class Reply:
    """A stand-in for an AssistantMessage whose whole text the engine holds (`reply_text`)."""

    def __init__(self, text: str, received: int = 0) -> None:
        self.engine_text = text
        self.reply_text = lambda: self.engine_text
        self.received = received  # content already handed to the message


def test_a_reply_the_engine_holds_is_held_by_reference_and_handed_out_whole() -> None:
    """Held while the user types, a reply whose text the engine holds is not copied here: what is held
    is where it lies in the engine's text (megabytes were held twice over), and taken a few KB at a
    time it still comes out whole and in order, reasoning held between its pieces too."""
    text = "".join(f"word{n:05d} " for n in range(2000))  # 20 KB
    reply = Reply(text, received=100)  # the first 100 characters were shown before the hold
    held = HeldOutput()
    for start in range(100, 15_000, 700):
        held.add(reply, "content", text[start:min(start + 700, 15_000)])
    held.add(reply, "reasoning", "thinking")
    held.add(reply, "content", text[15_000:])
    assert all(not run.texts for run in held._runs if run.kind == "content"), "held content is a copy"
    got: list[tuple[str, str]] = []
    while held:
        got.extend((run.kind, run.text()) for run in held._take(2500))
    assert "".join(chunk for kind, chunk in got if kind == "content") == text[100:]
    assert ("reasoning", "thinking") in got


def test_held_text_that_the_engine_text_does_not_have_is_kept_as_sent() -> None:
    """Should the text streamed to a reply ever differ from the engine's, what was sent is what shows."""
    reply = Reply("abcdef")
    held = HeldOutput()
    held.add(reply, "content", "abc")
    held.add(reply, "content", "XYZ")  # not what the engine's text has next
    assert "".join(run.text() for run in held._take(100)) == "abcXYZ"
