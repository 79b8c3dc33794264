"""A headless frontend for engine tests: records events and answers approvals by a rule."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

from app.engine import events as ev
from app.engine.session import Session
from app.providers.base import ModelSettings
from app.providers.openai_chat import OpenAIChatProvider
from app.storage.async_store import AsyncStore
from app.storage.location import choose_store
from tools.context import ToolContext
from tools.registry import ToolRegistry

Decider = Callable[[ev.ApprovalItem], ev.ApprovalDecision]


def approve_all(_item: ev.ApprovalItem) -> ev.ApprovalDecision:
    return ev.ApprovalDecision("approve")


class Recorder:
    """Collects events; resolves approval futures with `decide` (None leaves them pending)."""

    def __init__(self, decide: Decider | None = approve_all) -> None:
        self.events: list[ev.EngineEvent] = []
        self.decide = decide
        self.approvals: list[ev.ApprovalRequested] = []
        self.approval_seen = asyncio.Event()

    def __call__(self, event: ev.EngineEvent) -> None:
        self.events.append(event)
        if isinstance(event, ev.ApprovalRequested):
            self.approvals.append(event)
            self.approval_seen.set()
            if self.decide is not None:
                event.future.set_result({item.call_id: self.decide(item) for item in event.items})

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]

    def text(self) -> str:
        return "".join(e.text for e in self.of(ev.ContentDelta))


async def make_session(server, workspace: Path, data_dir: Path, recorder: Recorder,
                       *, workstream_id: str | None = None, messages=None, context_window: int | None = 8000):
    """A real Session: real provider over HTTP to the fake server, real tools, real SQLite file."""
    chosen = choose_store(data_dir)  # WHIMBREL_DATABASE_URL, when a test sets it, as the app does
    store = await AsyncStore.open(chosen.location, chosen.connect_args)
    if workstream_id is None:
        workstream_id = await store.create_workstream(title="test", model="fake-model", workdir=str(workspace))
    provider = OpenAIChatProvider(ModelSettings(model="fake-model", base_url=server.base_url, api_key="x",
                                                context_window=context_window))
    session = Session(workstream_id=workstream_id, provider=provider, registry=ToolRegistry.load_builtin(),
                      tool_context=ToolContext(workspace=workspace, bash_timeout=20), emit=recorder,
                      store=store, messages=messages, retry_base_delay=0.01)
    return session, store


async def shutdown(session: Session, store: AsyncStore) -> None:
    """Close the provider's HTTP client and the store, as the app does on exit."""
    await session.provider.close()
    await store.aclose()
