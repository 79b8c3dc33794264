"""Streamed text for a workstream view that is not on screen: kept in order, rendered when shown.

A background tab's reply can stream for minutes. Rendering it token by token into widgets nobody
sees costs the visible pane (and the keyboard) its frames, so a hidden view keeps the text here and
hands it to its messages in one go: when it is shown again, or when the reply ends.

A reply's text is held by reference when it can be: a reply whose whole text the engine holds
(`reply_text` of its AssistantMessage) is held as where the held part lies in that text, sliced out
as it is rendered. While the user types, a reply streaming at full speed is held for seconds, and
megabytes of it were held a second time here (and a third once joined to be rendered).
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
    """Consecutive held output of one kind for one message: `texts`, or, by reference (`reply` set),
    `length` characters of `reply()` from `start`."""

    message: AssistantMessage
    kind: Kind
    texts: list[str] = field(default_factory=list)
    reply: Callable[[], str] | None = None
    start: int = 0
    length: int = 0

    @property
    def size(self) -> int:
        return self.length if self.reply is not None else sum(map(len, self.texts))

    def add(self, text: str) -> None:
        """`text` comes next; held by reference while the reply's text has it at the run's end."""
        if self.reply is not None:
            reply = self.reply()
            if reply.startswith(text, self.start + self.length):
                self.length += len(text)
                return
            self.texts, self.reply = [reply[self.start:self.start + self.length]], None  # (never seen)
        self.texts.append(text)

    def text(self, start: int = 0, end: int | None = None) -> str:
        """The held text (from `start` to `end`)."""
        if self.reply is None:
            return "".join(self.texts)[start:end]
        end = self.length if end is None else min(end, self.length)
        return self.reply()[self.start + start:self.start + end]

    def split(self, limit: int) -> _Run:
        """Remove and return the run's first `limit` characters, as a run of their own."""
        if self.reply is None:
            return _Run(self.message, self.kind, _take_front(self.texts, limit))
        taken = min(limit, self.length)
        head = _Run(self.message, self.kind, reply=self.reply, start=self.start, length=taken)
        self.start, self.length = self.start + taken, self.length - taken
        return head


class HeldOutput:
    """Text deltas for the messages of a hidden view, in arrival order."""

    def __init__(self) -> None:
        self._runs: list[_Run] = []

    def __bool__(self) -> bool:
        return bool(self._runs)

    @property
    def size(self) -> int:
        """Characters held, not yet drawn."""
        return sum(run.size for run in self._runs)

    def add(self, message: AssistantMessage, kind: Kind, text: str = "") -> None:
        last = self._runs[-1] if self._runs else None
        if last is None or last.message is not message or last.kind != kind:
            reply = getattr(message, "reply_text", None) if kind == "content" else None
            start = 0
            if reply is not None:  # the text after what the message was given and what is held for it
                start = message.received + sum(run.size for run in self._runs
                                               if run.message is message and run.kind == "content")
            last = _Run(message, kind, reply=reply, start=start)
            self._runs.append(last)
        last.add(text)

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
            append = run.message.append_content if run.kind == "content" else run.message.append_reasoning
            if run.reply is None:
                run = _Run(run.message, run.kind, ["".join(run.texts)])  # joined once, sliced below
            for start in range(0, run.size, SLICE_CHARS):
                if not run.message.is_attached:
                    break
                if start:
                    await painted(run.message)
                    if pause():
                        run.split(start)
                        self._runs[:0] = [run, *taken]
                        return
                await append(run.text(start, start + SLICE_CHARS))
                after_slice()

    def _take(self, limit: int | None) -> list[_Run]:
        """Remove and return the held runs to render now: all, or up to `limit` characters."""
        if limit is None:
            taken, self._runs = self._runs, []
            return taken
        taken: list[_Run] = []
        while self._runs and limit > 0:
            run = self._runs[0]
            head = run.split(limit)  # the tail stays first in line
            taken.append(head)
            limit -= head.size
            if not run.size:
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
