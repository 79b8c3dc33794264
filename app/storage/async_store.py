"""`AsyncStore`: the Store for asyncio code, run on one dedicated worker thread.

The UI event loop never blocks on SQLite, and because there is exactly one worker, calls
run in the order they were made — a message is always written before the next one.
This module itself does not import the store's modules; `AsyncStore.open` does, on the worker.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

from app.storage.location import is_server_url, shown_url
from app.storage.reachability import StoreLink, StoreUnavailable
from app.storage.write_refused import WriteRefused

if TYPE_CHECKING:  # store.py and its mixins are imported on the worker, off the caller's thread
    from app.vocabulary.messages import Message
    from app.storage.history import Conversation
    from app.storage.leases import Lease, Owner
    from app.storage.search import SearchHit
    from app.storage.store import Store, WorkstreamInfo

T = TypeVar("T")


def _open_store(location: Path | str, connect_args: dict[str, Any] | None = None) -> Store:
    from app.storage.store import Store

    return Store(location, connect_args=connect_args)


class AsyncStore:
    """Awaitable wrappers around every `Store` method, executed on a single thread.

    After every call the database file is checked: once it has been deleted, `lost` is set and
    `on_lost(explanation)` is called (once, on the caller's loop), so the user hears of it at the
    next write instead of believing the conversation is still saved. A write refused because another
    window took its workstream over calls `on_refused(error)` before the error reaches the caller. A call
    that fails because the store's server does not answer (StoreUnavailable) tells `link`, which then
    probes the server with back-off until it answers (app/storage/reachability.py).
    """

    def __init__(self, store: Store, executor: ThreadPoolExecutor | None = None) -> None:
        self.store = store
        self._executor = executor or ThreadPoolExecutor(max_workers=1,
                                                        thread_name_prefix="whimbrel-db")
        self.lost = False
        self.on_lost: Callable[[str], None] | None = None
        self.on_refused: Callable[[WriteRefused], None] | None = None
        self.link = StoreLink(self._probe)  # whether the server answers (only ever not on PostgreSQL)

    @property
    def path(self) -> Path:
        """The database file."""
        return self.store.path

    def lost_explanation(self) -> str:
        """What to tell the user once the file is gone."""
        return (f"The conversation store {self.store.path} was deleted while Whimbrel was running: "
                "nothing from now on is saved, and these conversations cannot be resumed. "
                "Restart Whimbrel to start a new store.")

    @classmethod
    async def open(cls, path: Path | str, connect_args: dict[str, Any] | None = None) -> AsyncStore:
        """Import the store, open and migrate the database, all off the event loop. `path` is a SQLite
        file or a PostgreSQL URL (app/storage/location.py); `connect_args` the driver's (password, TLS)."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="whimbrel-db")
        loop = asyncio.get_running_loop()
        location = path if is_server_url(path) else Path(path)
        try:
            store = await loop.run_in_executor(executor, _open_store, location, connect_args)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(store, executor)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn(*args, **kwargs)` on the database thread and return its result."""
        loop = asyncio.get_running_loop()
        try:
            result, missing = await loop.run_in_executor(self._executor, self._checked, partial(fn, *args, **kwargs))
        except WriteRefused as error:
            if self.on_refused is not None:
                self.on_refused(error)
            raise
        except StoreUnavailable as error:
            self.link.lost(error)
            raise
        if missing and not self.lost:
            self.lost = True
            if self.on_lost is not None:
                self.on_lost(self.lost_explanation())
        return result

    async def _probe(self) -> None:
        """One round trip to the server, off the store's thread (a call stuck there must not stop the
        probe); StoreUnavailable while it does not answer."""
        await asyncio.get_running_loop().run_in_executor(None, self.store.engine.ping)

    def _checked(self, call: Callable[[], T]) -> tuple[T, bool]:
        """On the database thread: the call's result, and whether the file is gone by now."""
        result = call()
        return result, not self.lost and self.store.file_missing()

    async def create_workstream(self, *, title: str | None = None, model: str | None = None,
                                workdir: str = "") -> str:
        return await self.run(self.store.create_workstream, title=title, model=model,
                              workdir=workdir)

    async def get_workstream(self, workstream_id: str) -> WorkstreamInfo | None:
        return await self.run(self.store.get_workstream, workstream_id)

    async def find_workstream(self, ref: str) -> WorkstreamInfo:
        return await self.run(self.store.find_workstream, ref)

    async def list_workstreams(self) -> list[WorkstreamInfo]:
        return await self.run(self.store.list_workstreams)

    async def update_workstream(self, workstream_id: str, **fields: Any) -> None:
        await self.run(self.store.update_workstream, workstream_id, **fields)

    async def delete_workstream(self, workstream_id: str) -> None:
        await self.run(self.store.delete_workstream, workstream_id)

    async def add_message(self, workstream_id: str, msg: Message) -> int:
        return await self.run(self.store.add_message, workstream_id, msg)

    async def start_draft(self, workstream_id: str, msg: Message) -> int:
        return await self.run(self.store.start_draft, workstream_id, msg)

    async def end_draft(self, workstream_id: str) -> None:
        await self.run(self.store.end_draft, workstream_id)

    async def append_draft(self, workstream_id: str, message_id: int, content: str, reasoning: str) -> None:
        await self.run(self.store.append_draft, workstream_id, message_id, content, reasoning)

    async def complete_draft(self, workstream_id: str, message_id: int, msg: Message) -> int:
        return await self.run(self.store.complete_draft, workstream_id, message_id, msg)

    async def load_messages(self, workstream_id: str) -> list[Message]:
        return await self.run(self.store.load_messages, workstream_id)

    async def set_config(self, workstream_id: str, key: str, value: Any) -> None:
        await self.run(self.store.set_config, workstream_id, key, value)

    async def get_config(self, workstream_id: str) -> dict[str, Any]:
        return await self.run(self.store.get_config, workstream_id)

    # -- usage and compactions (UsageMixin) -------------------------------------------
    async def add_usage(self, workstream_id: str, **fields: Any) -> int:
        return await self.run(self.store.add_usage, workstream_id, **fields)

    async def list_usage(self, workstream_id: str) -> list:
        return await self.run(self.store.list_usage, workstream_id)

    async def usage_totals(self) -> list:
        return await self.run(self.store.usage_totals)

    async def add_compaction(self, workstream_id: str, **fields: Any) -> int:
        return await self.run(self.store.add_compaction, workstream_id, **fields)

    async def latest_compaction(self, workstream_id: str) -> Any:
        return await self.run(self.store.latest_compaction, workstream_id)

    # -- history: search, prompt history, app state, pruning, /clear, /rewind ------------
    async def search(self, query: str, limit: int = 50, *, order: str = "relevance",
                     workstream_id: str | None = None) -> list[SearchHit]:
        return await self.run(self.store.search, query, limit, order=order,
                              workstream_id=workstream_id)

    async def add_prompt_history(self, workstream_id: str, text: str) -> None:
        await self.run(self.store.add_prompt_history, workstream_id, text)

    async def prompt_history(self, workstream_id: str, limit: int = 500) -> list[str]:
        return await self.run(self.store.prompt_history, workstream_id, limit)

    async def set_app_state(self, key: str, value: Any) -> None:
        await self.run(self.store.set_app_state, key, value)

    async def get_app_state(self, key: str) -> Any:
        return await self.run(self.store.get_app_state, key)

    async def prune(self, retention_days: float, now: float | None = None, *,
                    keep: Iterable[str] = (), empty_grace: float | None = None) -> int:
        extra = {} if empty_grace is None else {"empty_grace": empty_grace}
        return await self.run(self.store.prune, retention_days, now, keep=list(keep), **extra)

    async def clear_context(self, workstream_id: str) -> None:
        await self.run(self.store.clear_context, workstream_id)

    async def load_conversation(self, workstream_id: str) -> Conversation:
        return await self.run(self.store.load_conversation, workstream_id)

    async def rewind(self, workstream_id: str, turns: int) -> int:
        return await self.run(self.store.rewind, workstream_id, turns)

    # -- leases: which instance has a workstream open ---------------------------------
    def guard_writes(self, owner: Owner) -> None:
        """From now on a write into a workstream whose lease another instance holds is refused."""
        self.store.writer = owner

    async def take_lease(self, workstream_id: str, owner: Owner) -> Lease | None:
        return await self.run(self.store.take_lease, workstream_id, owner)

    async def refresh_leases(self, owner: Owner, workstream_ids: Iterable[str]) -> list[str]:
        return await self.run(self.store.refresh_leases, owner, list(workstream_ids))

    async def release_leases(self, owner: Owner, workstream_ids: Iterable[str] | None = None) -> None:
        ids = None if workstream_ids is None else list(workstream_ids)
        await self.run(self.store.release_leases, owner, ids)

    async def live_leases(self) -> list[Lease]:
        return await self.run(self.store.live_leases)

    async def lease(self, workstream_id: str) -> Lease | None:
        return await self.run(self.store.lease, workstream_id)

    def listen(self, on_change: Callable[[str | None], None]) -> Any:
        """Store.listen, with `on_change` called on this (the caller's) event loop; None on SQLite.
        Starts a thread and returns at once: the connection is made on that thread. The listening
        connection dropping tells `link` (the store may be gone); listening again asks it to probe now."""
        loop = asyncio.get_running_loop()

        def changed(workstream_id: str | None) -> None:
            if workstream_id is None and not self.link.reachable:
                self.link.retry_now()  # the listener reconnected: the server is likely back
            on_change(workstream_id)

        def lost(error: BaseException) -> None:
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
            self.link.lost(StoreUnavailable(f"lost the connection to the PostgreSQL store "
                                            f"{shown_url(str(self.store.engine.url))}: {reason}"))

        context = contextvars.copy_context()  # the caller's (a window's active app): timers made from it work

        def relay(call: Callable[[Any], None]) -> Callable[[Any], None]:
            def on_loop(value: Any) -> None:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(call, value, context=context)
            return on_loop

        return self.store.listen(relay(changed), relay(lost))

    async def live_instances(self) -> list:
        """The team view's rows: app/storage/team.py."""
        return await self.run(self.store.live_instances)

    async def aclose(self) -> None:
        """Finish queued work, close the database, and stop the worker thread."""
        self.link.close()
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, self.store.close)
        finally:
            self._executor.shutdown(wait=False)
