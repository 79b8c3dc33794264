"""The model to talk to, from the command line's flags, the environment and the config's [models]."""

from __future__ import annotations

import os
from typing import Mapping

from app.providers.base import ModelSettings
from app.providers.models import NO_KEY
from app.settings.config import Config, ModelConfig



def _model_key(entry: ModelConfig | None, env: Mapping[str, str]) -> str | None:
    """The key a configured model asks for: literal, then its env var, then OPENAI_API_KEY."""
    if entry is None:
        return None
    if entry.api_key:
        return entry.api_key
    if entry.api_key_env and env.get(entry.api_key_env):
        return env[entry.api_key_env]
    return env.get("OPENAI_API_KEY") or None


def default_model_config(config: Config) -> ModelConfig | None:
    """The configured default model, or the only model when exactly one is defined."""
    if config.default_model:
        return config.models.get(config.default_model)
    if len(config.models) == 1:
        return next(iter(config.models.values()))
    return None


def resolve_model(config: Config, *, base_url: str | None = None, api_key: str | None = None,
                  model: str | None = None,
                  env: Mapping[str, str] = os.environ) -> ModelSettings | None:
    """Combine CLI flags, environment and config into the settings for the model to use.

    `model` (the --model flag) may name a configured alias, which is used as is (other
    flags still override it); any other name builds an ad-hoc OpenAI-compatible model
    whose base URL and key come from the flags, then OPENAI_BASE_URL / OPENAI_API_KEY,
    then the default model. Without `model`, the config's default model is used.
    Returns None when there is no model to use (the app then offers setup).
    """
    default = default_model_config(config)
    if model and model not in config.models:
        return ModelSettings(
            model=model,
            base_url=base_url or env.get("OPENAI_BASE_URL") or (default and default.base_url),
            api_key=api_key or env.get("OPENAI_API_KEY") or _model_key(default, env) or NO_KEY,
        )
    entry = config.models[model] if model else default
    if entry is None:
        return None
    return ModelSettings(
        model=entry.model,
        base_url=base_url or entry.base_url,
        api_key=api_key or _model_key(entry, env) or NO_KEY,
        context_window=entry.context_window,
        temperature=entry.temperature,
        max_tokens=entry.max_tokens,
        provider=entry.provider,
        alias=entry.alias,
        reasoning_effort=entry.reasoning_effort,
        capabilities=dict(entry.capabilities),
        price=dict(entry.price),
    )
