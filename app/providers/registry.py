"""Build a provider for a model's settings. Imports the provider module only when needed."""

from __future__ import annotations

from app.providers.base import ModelSettings, Provider

PROVIDERS = ("openai", "openai-responses", "anthropic", "google")
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
    import asyncio
    import importlib
    import sys

    module = SDK_MODULES.get(settings.provider or "openai", "openai")
    if module not in sys.modules:
        await asyncio.to_thread(importlib.import_module, module)
