"""Build a provider for a model's settings. Imports the provider module only when needed."""

from __future__ import annotations

from app.providers.base import ModelSettings, Provider

SDK_MODULES = {"openai": "openai"}


def make_provider(settings: ModelSettings, provider: str = "openai") -> Provider:
    if provider != "openai":
        raise ValueError(f"provider '{provider}' is not supported yet; use an OpenAI-compatible endpoint")
    from app.providers.openai_chat import OpenAIChatProvider

    return OpenAIChatProvider(settings)
