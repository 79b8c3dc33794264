"""Sessions backed by a ModelRegistry (several aliases on the fake servers), for engine tests."""

from __future__ import annotations

from pathlib import Path

from app.engine.session import Session
from app.providers.base import ModelSettings
from app.providers.models import ModelRegistry
from app.storage.async_store import AsyncStore
from tests.engine.harness import Recorder
from tools.context import ToolContext
from tools.registry import ToolRegistry


def registry_for(models: dict[str, ModelSettings], *, fallback=(), clock=None, threshold=3,
                 cooldown=30.0) -> ModelRegistry:
    extra = {"clock": clock} if clock else {}
    return ModelRegistry(models, default=next(iter(models)), fallback=list(fallback),
                         breaker_threshold=threshold, breaker_cooldown=cooldown, **extra)


def openai_model(server, alias: str, model: str = "fake-model", **fields) -> ModelSettings:
    return ModelSettings(model=model, base_url=server.base_url, api_key="x", alias=alias,
                         provider="openai", timeout=5.0, **fields)


def anthropic_model(server, alias: str, model: str = "fake-claude", **fields) -> ModelSettings:
    return ModelSettings(model=model, base_url=server.base_url, api_key="x", alias=alias,
                         provider="anthropic", timeout=5.0, **fields)


async def models_session(models: ModelRegistry, workspace: Path, data_dir: Path, recorder: Recorder,
                         **options) -> tuple[Session, AsyncStore]:
    store = await AsyncStore.open(data_dir / "whimbrel.db")
    ws = await store.create_workstream(title="t", model="m", workdir=str(workspace))
    session = Session(workstream_id=ws, provider=None, models=models, registry=ToolRegistry.load_builtin(),
                      tool_context=ToolContext(workspace=workspace, bash_timeout=20), emit=recorder,
                      store=store, max_retries=1, retry_base_delay=0.0, **options)
    return session, store


async def close(models: ModelRegistry, store: AsyncStore) -> None:
    await models.aclose()
    await store.aclose()
