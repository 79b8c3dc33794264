"""A workstream: one conversation with its session, its storage row and its live state."""

from __future__ import annotations

from typing import Any

from app.engine.session import Session


class Workstream:
    """Owns a Session; creates its storage row on the first message so empty workstreams are never saved."""

    def __init__(self, session: Session, *, store: Any = None, title: str = "", model: str = "",
                 workdir: str = "") -> None:
        self.session = session
        self.store = store
        self.title = title or "new workstream"
        self.model = model
        self.workdir = workdir
        self.state = "idle"

    @property
    def id(self) -> str:
        return self.session.workstream_id

    @property
    def busy(self) -> bool:
        return self.state in ("thinking", "running", "attention")

    async def ensure_saved(self) -> str:
        """Create the storage row if this workstream has none yet; returns its id."""
        if not self.session.workstream_id and self.store is not None:
            self.session.workstream_id = await self.store.create_workstream(
                title=None, model=self.model or None, workdir=self.workdir)
        return self.session.workstream_id

    async def submit(self, text: str) -> None:
        """Run one user turn to completion (the caller runs this as a cancellable task)."""
        await self.ensure_saved()
        if self.title == "new workstream":
            self.title = _title_from(text)
            if self.store is not None and self.id:
                await self.store.update_workstream(self.id, title=self.title)
        await self.session.run_turn(text)


def _title_from(text: str, limit: int = 40) -> str:
    """A provisional title: the first line of the first prompt, shortened."""
    first = " ".join(text.strip().splitlines()[0].split()) if text.strip() else "new workstream"
    return first if len(first) <= limit else first[: limit - 1] + "…"
