"""`MemoryService`: memories and recall for asyncio code, run on the store's database thread.

One per app (or headless run), shared by every workstream; each call says whose view it is
through a `Visibility`. Listeners hear of saves and deletes, so the engine can put a marker in
the right transcript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from app.memory.limits import MemoryLimits
from app.memory.memory_store import MemoryStore
from app.memory.recall import RecallHit, recall
from app.memory.records import Memory, Visibility
from app.memory.relevance import MemorySelector

Listener = Callable[[str, str, Memory], None]  # (workstream id, "saved" | "deleted", memory)


class MemoryService:
    """Async access to memories and recall through an `AsyncStore` (anything with `run` and `store`)."""

    def __init__(self, async_store: Any, config_dir: Path | None = None, limits: MemoryLimits | None = None) -> None:
        """`config_dir` holds the user's instruction file and skills; `limits` come from [memory]."""
        self._async_store = async_store
        self.config_dir = config_dir
        self.limits = limits or MemoryLimits()
        self._memories: MemoryStore | None = None
        self._selector: MemorySelector | None = None
        self.listeners: list[Listener] = []

    def _store(self) -> MemoryStore:  # on the database thread
        if self._memories is None:
            self._memories = MemoryStore(self._async_store.store.engine, content_limit=self.limits.content_bytes)
            self._selector = MemorySelector(self._memories)
        return self._memories

    async def _run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await self._async_store.run(lambda: fn(self._store(), *args, **kwargs))

    def _tell(self, workstream_id: str, action: str, memory: Memory) -> None:
        self.listeners = [item for item in self.listeners if getattr(item, "alive", True)]
        for listener in list(self.listeners):
            listener(workstream_id, action, memory)

    async def save(self, visibility: Visibility, name: str, content: str | None, **fields: Any) -> tuple[Memory, bool]:
        memory, created = await self._run(MemoryStore.save, visibility, name, content, **fields)
        self._tell(visibility.workstream_id, "saved", memory)
        return memory, created

    async def get(self, visibility: Visibility | None, name: str, scope: str | None = None) -> Memory | None:
        return await self._run(MemoryStore.get, visibility, name, scope)

    async def list(self, visibility: Visibility | None, **filters: Any) -> list[Memory]:
        return await self._run(MemoryStore.list, visibility, **filters)

    async def search(self, visibility: Visibility | None, query: str, **filters: Any) -> list[Memory]:
        return await self._run(MemoryStore.search, visibility, query, **filters)

    async def delete(self, visibility: Visibility | None, name: str, scope: str | None = None) -> Memory | None:
        found = await self._run(MemoryStore.delete, visibility, name, scope)
        if found is not None:
            self._tell(visibility.workstream_id if visibility else "", "deleted", found)
        return found

    async def delete_memory(self, memory: Memory) -> None:
        """Delete this very memory (the browser, which may show other workspaces' memories too)."""
        await self._run(MemoryStore.delete_id, memory.id)
        self._tell("", "deleted", memory)

    async def update(self, memory_id: int, **fields: Any) -> None:
        await self._run(MemoryStore.update, memory_id, **fields)

    async def select(self, visibility: Visibility, conversation: str, **options: Any) -> list[Memory]:
        """The memories for a turn (app/memory/relevance.py), counted as accessed."""
        def pick(_store: MemoryStore) -> list[Memory]:
            assert self._selector is not None
            return self._selector.select(visibility, conversation, **{"top": self.limits.per_turn, **options})
        return await self._run(pick)

    async def recall(self, query: str, **options: Any) -> list[RecallHit]:
        """Full-text search over all stored messages (app/memory/recall.py); RecallError in words."""
        store = self._async_store.store

        def run(_memories: MemoryStore) -> list[RecallHit]:
            from app.storage.engine import reader

            with reader(store.engine).connect() as conn:
                return recall(conn, query, use_fts=store.fts_enabled, **options)
        return await self._run(run)
