"""Saving a reply while it streams, so a crash keeps its text and marks the turn as interrupted.

The first save stores the reply as an assistant message with `interrupted` set (and the workstream
as streaming, for a window following it read-only); later saves
append only the text that came since (app/storage/drafts.py), so a save costs what it adds and no
copy of the whole text is kept here. Saves happen every SAVE_EVERY seconds (never one per token; less often for
replies so large that a save takes long), in a background task, through the store's own thread
(AsyncStore), so the event loop never waits on SQLite. `finish` writes the final message into the same row (or adds it when nothing was saved).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, Callable

from app.engine.text_parts import TextParts
from app.vocabulary.messages import Message

SAVE_EVERY = 0.5  # seconds: what a SIGKILL loses of a streaming reply is at most about this much
# Waiting this many times the last save's duration keeps saving under a fifth of the time even when
# the store is slow (another window holding the write lock, a slow disk).
BACKOFF = 4.0


class ReplyDraft:
    """The stored copy of one streaming reply; `content` and `reasoning` are the session's TextParts."""

    def __init__(self, store: Any, workstream_id: str, content: TextParts, reasoning: TextParts,
                 *, every: float = SAVE_EVERY) -> None:
        self.store = store
        self.workstream_id = workstream_id
        self.content = content
        self.reasoning = reasoning
        self.every = every
        self.message_id: int | None = None
        self._saved = (0, 0)  # how many characters of content and reasoning are stored
        # Called with a save's error; True: a failure the user has been told of (the disk refused), so
        # saving stops and the turn goes on; False: a bug, raised again by `finish`.
        self.on_failed: Callable[[BaseException], bool] = lambda _error: False
        self._lock = asyncio.Lock()
        self._task: asyncio.Task | None = None

    @staticmethod
    def supported(store: Any) -> bool:
        """Only stores with draft rows (AsyncStore) save replies as they stream."""
        return store is not None and hasattr(store, "complete_draft")

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._save_periodically(), name="reply-draft")

    async def _save_periodically(self) -> None:
        wait = self.every
        while True:
            await asyncio.sleep(wait)
            started = time.monotonic()
            try:
                await asyncio.shield(self._save())  # a stop between saves, never in the middle of one
            except Exception as error:
                if self.on_failed(error):
                    return  # told; no more saves (each would fail the same way) until the reply completes
                raise
            wait = max(self.every, BACKOFF * (time.monotonic() - started))

    @property
    def saved(self) -> int:
        """Characters of the reply (content and reasoning) stored so far."""
        return sum(self._saved)

    async def _save(self) -> None:
        async with self._lock:
            (content_done, reasoning_done), parts = self._saved, (self.content.size, self.reasoning.size)
            content, reasoning = self.content.since(content_done), self.reasoning.since(reasoning_done)
            if not (content or reasoning):
                return
            if self.message_id is None:
                draft = Message(role="assistant", content=content, reasoning=reasoning, interrupted=True)
                self.message_id = await self.store.start_draft(self.workstream_id, draft)
            else:
                await self.store.append_draft(self.workstream_id, self.message_id, content, reasoning)
            self._saved = parts

    async def _stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def finish(self, message: Message) -> None:
        """Stop saving and store the final `message` (in the draft's row when there is one)."""
        await self._stop()
        async with self._lock:  # a save that was under way has completed
            if self.message_id is None:
                await self.store.add_message(self.workstream_id, message)
            else:
                await self.store.complete_draft(self.workstream_id, self.message_id, message)

    async def discard(self) -> None:
        """Stop saving; the stored draft (if any) stays as it is: interrupted, and no longer streaming
        (what a read-only window following it shows)."""
        await self._stop()
        if self.message_id is not None:
            with contextlib.suppress(Exception):  # best effort: the error that stopped the reply is the news
                await self.store.end_draft(self.workstream_id)
