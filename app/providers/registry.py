"""Build a provider for a model's settings. Imports the provider module only when needed."""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import sys
import threading

from app.providers.base import ModelSettings, Provider
from app.settings.config import PROVIDERS  # the names a config may use; each is made below

SDK_MODULES = {"openai": "openai", "openai-responses": "openai", "anthropic": "anthropic", "google": "openai"}


def make_provider(settings: ModelSettings, provider: str | None = None) -> Provider:
    """The provider for `settings.provider` (or the explicit `provider` argument)."""
    kind = provider or settings.provider or "openai"
    if kind == "openai":
        from app.providers.openai_chat import OpenAIChatProvider

        return OpenAIChatProvider(settings)
    if kind == "openai-responses":
        from app.providers.openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider(settings)
    if kind == "anthropic":
        from app.providers.anthropic import AnthropicProvider

        return AnthropicProvider(settings)
    if kind == "google":
        from app.providers.google import GoogleProvider

        return GoogleProvider(settings)
    raise ValueError(f"unknown provider '{kind}': use one of {', '.join(PROVIDERS)}")


async def import_sdk_off_loop(settings: ModelSettings) -> None:
    """Import the SDK a model needs on a worker thread (anthropic alone takes over a second here),
    so the first request after startup or a /model switch never freezes the UI."""
    await import_off_loop(SDK_MODULES.get(settings.provider or "openai", "openai"))


async def prepare_off_loop(provider: Provider) -> None:
    """Import `provider`'s SDK and build its client on worker threads: the client's HTTP transport
    imports ~60 more modules and builds a TLS context (~50 ms and 3 MB here), which the first request
    would otherwise do on the event loop. A provider without an SDK client only gets the import."""
    await import_sdk_off_loop(provider.settings)
    prepare = getattr(provider, "prepare", None)
    if prepare is not None:
        await prepare()


_imports_under_way: dict[str, concurrent.futures.Future] = {}
_imports_lock = threading.Lock()


async def import_off_loop(module: str) -> None:
    """Import `module` on a worker thread; a caller that comes while the import is under way waits for
    the same import. A module being imported is already in sys.modules, half made: a second caller that
    went on then would import it again on the event loop, which blocks there until the thread is done."""
    with _imports_lock:
        future = _imports_under_way.get(module)
        if future is None:
            if module in sys.modules:
                return
            future = _imports_under_way[module] = concurrent.futures.Future()
            threading.Thread(target=_import_into, args=(module, future), name=f"import {module}", daemon=True).start()
    await asyncio.shield(asyncio.wrap_future(future))  # a cancelled caller leaves the import to the others


def _import_into(module: str, future: concurrent.futures.Future) -> None:
    try:
        importlib.import_module(module)
    except BaseException as error:  # noqa: BLE001 - handed to every caller
        future.set_exception(error)
    else:
        future.set_result(None)
    finally:
        with _imports_lock:
            _imports_under_way.pop(module, None)
