"""The model registry: aliases from config and CLI, the fallback chain, per-backend breakers.

    registry = ModelRegistry.from_args(config, args)    # --model, --base-url, --vision... on the config
    provider = registry.provider(registry.default)       # cached, one per alias
    for alias in registry.chain(registry.default): ...   # primary, then [model] fallback

A `CircuitBreaker` guards each backend (provider + base URL, shared by every alias and
workstream that uses it): after `threshold` consecutive failed requests it opens and
requests skip that backend; after `cooldown` seconds it lets one trial request through
(half-open), which closes it again on success or re-opens it on failure; a trial that ends
otherwise (Esc, a non-retryable error) frees the slot for the next request.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping

from app.providers.base import ModelSettings, Provider

if TYPE_CHECKING:
    from app.settings.config import Config, ModelConfig

BreakerState = Literal["closed", "open", "half-open"]
NO_KEY = "not-needed"
KEY_ENV = {"openai": "OPENAI_API_KEY", "openai-responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
           "google": "GEMINI_API_KEY"}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "openai-responses": "OPENAI_BASE_URL",
                "anthropic": "ANTHROPIC_BASE_URL"}
CLI_ALIAS = "cli"


class CircuitBreaker:
    """closed → (threshold failures) → open → (cooldown) → half-open → closed / open."""

    def __init__(self, name: str, *, threshold: int = 3, cooldown: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._state: BreakerState = "closed"
        self.failures = 0
        self.opened_at = 0.0
        self._trial_out = False

    @property
    def state(self) -> BreakerState:
        if self._state == "open" and self._clock() - self.opened_at >= self.cooldown:
            self._state = "half-open"
            self._trial_out = False
        return self._state

    def retry_in(self) -> float:
        """Seconds until an open breaker lets a trial request through."""
        return max(0.0, self.cooldown - (self._clock() - self.opened_at)) if self.state == "open" else 0.0

    def allow(self) -> bool:
        """May a request go to this backend now? Half-open admits one trial at a time."""
        state = self.state
        if state == "closed":
            return True
        if state == "half-open" and not self._trial_out:
            self._trial_out = True
            return True
        return False

    def release_trial(self) -> None:
        """A request ended with neither success nor a counted failure (cancelled, or a non-retryable
        error): a half-open breaker's trial slot is free again, so the next request is the trial."""
        self._trial_out = False

    def record_success(self) -> None:
        self._state = "closed"
        self.failures = 0
        self._trial_out = False

    def record_failure(self) -> None:
        self.failures += 1
        if self._state == "half-open" or self.failures >= self.threshold:
            self._state = "open"
            self.opened_at = self._clock()
            self._trial_out = False


def backend_key(settings: ModelSettings) -> str:
    """Which endpoint a model lives on: aliases sharing one server share its breaker."""
    return f"{settings.provider}:{settings.base_url or 'default'}"


def api_key_for(entry: ModelConfig, env: Mapping[str, str]) -> str | None:
    """A configured model's key: literal, then its env var, then its provider's usual env var."""
    if entry.api_key:
        return entry.api_key
    if entry.api_key_env and env.get(entry.api_key_env):
        return env[entry.api_key_env]
    return env.get(KEY_ENV.get(entry.provider, "OPENAI_API_KEY")) or None


def settings_from_entry(entry: ModelConfig, env: Mapping[str, str] = os.environ) -> ModelSettings:
    """ModelSettings for one `[models.<alias>]` entry."""
    return ModelSettings(
        model=entry.model, provider=entry.provider, alias=entry.alias,
        base_url=entry.base_url or env.get(BASE_URL_ENV.get(entry.provider, "")) or None,
        api_key=api_key_for(entry, env) or NO_KEY,
        context_window=entry.context_window, temperature=entry.temperature,
        max_tokens=entry.max_tokens, reasoning_effort=entry.reasoning_effort,
        thinking_budget=(entry.capabilities or {}).get("thinking_budget"),
        capabilities=dict(entry.capabilities or {}),
        price=dict(getattr(entry, "price", None) or {}),
    )


@dataclass
class ModelInfo:
    """One row of `/model` or the model picker."""

    alias: str
    model: str
    provider: str
    base_url: str | None
    context_window: int
    is_default: bool
    breaker: BreakerState


class ModelRegistry:
    """Every usable model by alias, plus the default, fallback chain and agent model."""

    def __init__(self, models: dict[str, ModelSettings], *, default: str | None = None,
                 fallback: list[str] | None = None, agent_model: str | None = None,
                 breaker_threshold: int = 3, breaker_cooldown: float = 30.0,
                 clock: Callable[[], float] = time.monotonic,
                 factory: Callable[[ModelSettings], Provider] | None = None) -> None:
        self.models = dict(models)
        self.default = default if default in self.models else next(iter(self.models), None)
        self.fallback = [a for a in (fallback or []) if a in self.models]
        self.agent_model = agent_model if agent_model in self.models else None
        self._providers: dict[str, Provider] = {}
        self._own_providers: list[Provider] = []  # own_provider's, one per workstream that asked
        self._breakers: dict[str, CircuitBreaker] = {}
        self._breaker_args = {"threshold": breaker_threshold, "cooldown": breaker_cooldown,
                              "clock": clock}
        self._factory = factory

    # -- building ------------------------------------------------------------------------
    @classmethod
    def from_args(cls, config: Config, args: Any, env: Mapping[str, str] = os.environ) -> ModelRegistry:
        """The registry a command line asks for: its --model, --provider, --base-url, --api-key and
        --vision on top of the config (the window and `whimbrel run` build theirs the same way)."""
        return cls.from_config(config, provider=args.provider, base_url=args.base_url, api_key=args.api_key,
                               model=args.model, vision=getattr(args, "vision", False), env=env)

    @classmethod
    def from_config(cls, config: Config, *, provider: str | None = None, base_url: str | None = None,
                    api_key: str | None = None, model: str | None = None, vision: bool = False,
                    env: Mapping[str, str] = os.environ, **options: Any) -> ModelRegistry:
        """Aliases from `[models.*]`; CLI flags override or add an ad-hoc default.

        `--model ALIAS` picks a configured alias (other flags override its fields);
        `--model NAME` (not an alias) builds the ad-hoc alias "cli" for `--provider`
        (default openai) with the key and base URL from flags, then the provider's env
        vars (OPENAI_*, ANTHROPIC_*, GEMINI_API_KEY). `vision` (--vision) says the --model takes images:
        the ad-hoc model has no config entry where `capabilities = { vision = true }` could go.
        """
        models = {alias: settings_from_entry(entry, env) for alias, entry in config.models.items()}
        default = config.default_model or (next(iter(models)) if len(models) == 1 else None)
        if model and model in models:
            default = model
            overrides = {k: v for k, v in (("base_url", base_url), ("api_key", api_key),
                                           ("provider", provider)) if v}
            if vision:
                overrides["capabilities"] = {**models[model].capabilities, "vision": True}
            models[model] = dataclasses.replace(models[model], **overrides)
        elif model:
            kind = provider or "openai"
            models[CLI_ALIAS] = ModelSettings(
                model=model, provider=kind, alias=CLI_ALIAS,
                base_url=base_url or env.get(BASE_URL_ENV.get(kind, "")) or None,
                api_key=api_key or env.get(KEY_ENV[kind]) or NO_KEY,
                capabilities={"vision": True} if vision else {})
            default = CLI_ALIAS
        elif default and (base_url or api_key or provider):
            overrides = {k: v for k, v in (("base_url", base_url), ("api_key", api_key),
                                           ("provider", provider)) if v}
            models[default] = dataclasses.replace(models[default], **overrides)
        return cls(models, default=default, fallback=list(config.fallback),
                   agent_model=config.agent_model, **options)

    # -- lookups -------------------------------------------------------------------------
    def __contains__(self, alias: str) -> bool:
        return alias in self.models

    def aliases(self) -> list[str]:
        return list(self.models)

    def settings(self, alias: str) -> ModelSettings:
        try:
            return self.models[alias]
        except KeyError:
            known = ", ".join(self.models) or "none configured"
            raise KeyError(f"no model called '{alias}' (known: {known})") from None

    def provider(self, alias: str) -> Provider:
        """The provider for `alias`, created on first use and then shared."""
        if alias not in self._providers:
            settings = self.settings(alias)
            if self._factory is not None:
                self._providers[alias] = self._factory(settings)
            else:
                from app.providers.registry import make_provider

                self._providers[alias] = make_provider(settings)
        return self._providers[alias]

    def own_provider(self, alias: str, **changes: Any) -> Provider:
        """A provider of its own for `alias` with some settings changed (a skill's temperature); not
        shared, so other workstreams on the same alias keep theirs."""
        settings = dataclasses.replace(self.settings(alias), **changes)
        if self._factory is not None:
            provider = self._factory(settings)
        else:
            from app.providers.registry import make_provider

            provider = make_provider(settings)
        self._own_providers.append(provider)  # closed by aclose with the shared ones
        return provider

    def breaker(self, alias: str) -> CircuitBreaker:
        """The breaker of the backend `alias` lives on."""
        key = backend_key(self.settings(alias))
        if key not in self._breakers:
            self._breakers[key] = CircuitBreaker(key, **self._breaker_args)
        return self._breakers[key]

    def breaker_states(self) -> dict[str, BreakerState]:
        """{backend: state} for every backend used so far (for a status bar)."""
        return {key: b.state for key, b in self._breakers.items()}

    def chain(self, alias: str | None = None) -> list[str]:
        """`alias` (default: the default model) followed by the fallback aliases, no repeats."""
        first = alias or self.default
        order = ([first] if first else []) + self.fallback
        return list(dict.fromkeys(a for a in order if a in self.models))

    def describe(self) -> list[ModelInfo]:
        """The models for `/model` and the picker, default first."""
        from app.providers.capabilities import context_window

        rows = []
        for alias, s in self.models.items():
            key = backend_key(s)
            state = self._breakers[key].state if key in self._breakers else "closed"
            rows.append(ModelInfo(alias, s.model, s.provider, s.base_url, context_window(s),
                                  alias == self.default, state))
        rows.sort(key=lambda r: not r.is_default)
        return rows

    async def aclose(self) -> None:
        """Close every provider's HTTP client."""
        for provider in [*self._providers.values(), *self._own_providers]:
            await provider.close()
        self._providers.clear()
        self._own_providers.clear()
