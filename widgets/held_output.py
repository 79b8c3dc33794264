"""Streamed text for a workstream view that is not on screen: kept in order, rendered when shown.

A background tab's reply can stream for minutes. Rendering it token by token into widgets nobody
sees costs the visible pane (and the keyboard) its frames, so a hidden view keeps the text here and
hands it to its messages in one go: when it is shown again, or when the reply ends.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable, Literal

from textual.widget import Widget

from widgets.messages import AssistantMessage
from widgets.textual_internals import updates_held

Kind = Literal["content", "reasoning"]
SLICE_CHARS = 16384  # held text is rendered this much at a time, painted in between
PAINT_WAIT = 0.25  # the longest wait for that paint (a screen that is not shown never paints)


@dataclass
class _Run:
    """Consecutive held output of one kind for one message."""

    message: AssistantMessage
    kind: Kind
    texts: list[str] = field(default_factory=list)


class HeldOutput:
    """Text deltas for the messages of a hidden view, in arrival order."""

    def __init__(self) -> None:
        self._runs: list[_Run] = []

    def __bool__(self) -> bool:
        return bool(self._runs)

    def add(self, message: AssistantMessage, kind: Kind, text: str = "") -> None:
        last = self._runs[-1] if self._runs else None
        if last is None or last.message is not message or last.kind != kind:
            last = _Run(message, kind)
            self._runs.append(last)
        last.texts.append(text)

    async def release(self, limit: int | None = None, pause: Callable[[], bool] = lambda: False,
                      after_slice: Callable[[], object] = lambda: None) -> None:
        """Render what is held, in order (messages removed meanwhile are skipped): everything, or
        the first `limit` characters (the rest stays held, still in order).

        Long text goes in slices, each painted before the next (`painted`), so keys and paints are not
        stuck behind one long render (a background reply can have grown by megabytes). Once
        `pause()` says so after a slice (the user started typing), the rest stays held.
        `after_slice` runs after each slice (the transcript follows, and puts far parts to sleep).
        """
        taken = self._take(limit)
        while taken:
            run = taken.pop(0)
            text = "".join(run.texts)
            append = run.message.append_content if run.kind == "content" else run.message.append_reasoning
            for start in range(0, len(text), SLICE_CHARS):
                if not run.message.is_attached:
                    break
                if start:
                    await painted(run.message)
                    if pause():
                        self._runs[:0] = [_Run(run.message, run.kind, [text[start:]]), *taken]
                        return
                await append(text[start:start + SLICE_CHARS])
                after_slice()

    def _take(self, limit: int | None) -> list[_Run]:
        """Remove and return the held runs to render now: all, or up to `limit` characters."""
        if limit is None:
            taken, self._runs = self._runs, []
            return taken
        taken: list[_Run] = []
        while self._runs and limit > 0:
            run = self._runs[0]
            head = _take_front(run.texts, limit)  # the tail stays first in line
            taken.append(_Run(run.message, run.kind, head))
            limit -= sum(map(len, head))
            if not run.texts:
                self._runs.pop(0)
        return taken


async def painted(widget: Widget, timeout: float = PAINT_WAIT) -> None:
    """Wait until the screen has laid out and painted what changed (at most `timeout` seconds).

    Yielding the loop alone is not enough: Textual paints nothing while a batch update is held, and
    each slice is appended in one, so the paint timer, firing while the next slice's batch was open,
    painted nothing. A fast stream of big updates held every layout off until it ended: no part of a
    1 MB reply went dormant, and the one layout at its end held the loop for seconds (a 10 MB reply of
    paragraphs froze the screen for over a minute). Textual runs a widget's after-refresh callbacks
    while a batch is held too, without painting: such a call is waited past."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (left := deadline - loop.time()) > 0:
        done = loop.create_future()
        if not widget.call_after_refresh(lambda: done.done() or done.set_result(None)):
            break  # the widget is closing: nothing of it will be painted
        try:
            await asyncio.wait_for(done, left)
        except asyncio.TimeoutError:
            return
        if not updates_held(widget.app):
            return
    await asyncio.sleep(0)


def _take_front(texts: list[str], limit: int) -> list[str]:
    """Remove and return the first `limit` characters of `texts`, as pieces. The rest is not joined:
    while the user types, a couple of KB go every two seconds from a backlog that can be megabytes."""
    head: list[str] = []
    while texts and limit > 0:
        piece = texts[0]
        if len(piece) > limit:
            head.append(piece[:limit])
            texts[0] = piece[limit:]
            break
        head.append(texts.pop(0))
        limit -= len(piece)
    return head
