"""What a provider/model can do: one record per model, from built-in knowledge plus config.

`capabilities_for(settings)` starts from the provider's defaults, applies the first built-in
rule whose model-name prefix matches (longest prefix wins), then the user's
`[models.<alias>.capabilities]` table and `context_window` / `max_tokens`. Providers read it to
decide what to send (thinking config, temperature, the token parameter's name) and whether
stored reasoning is replayed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from app.providers.base import ModelSettings

ThinkingMode = Literal["none", "budget", "adaptive", "effort"]


@dataclass(frozen=True)
class Capabilities:
    """One model's abilities.

    - `thinking`: "none"; "budget" (Anthropic manual `budget_tokens`); "adaptive" (Anthropic
      adaptive thinking, effort via output_config); "effort" (OpenAI-style `reasoning_effort`).
    - `token_param`: "max_tokens" or "max_completion_tokens" (OpenAI reasoning models).
    - `reasoning_replay`: stored reasoning is sent back to this provider on later turns.
    - `prompt_caching`: the provider takes explicit cache breakpoints (Anthropic).
    - `native_tool_search`: the provider defers tools itself (`defer_loading` and its own tool search:
      Anthropic's tool_search_tool_bm25, Responses' tool_search); only those two providers read it.
    """

    context_window: int = 32_768
    max_output: int = 8_192
    vision: bool = False
    thinking: ThinkingMode = "none"
    temperature: bool = True
    token_param: str = "max_tokens"
    reasoning_replay: bool = False
    prompt_caching: bool = False
    native_tool_search: bool = False


PROVIDER_DEFAULTS: dict[str, dict[str, Any]] = {
    "openai": {},
    "openai-responses": {},
    "anthropic": {"context_window": 200_000, "max_output": 8_192, "vision": True,
                  "reasoning_replay": True, "prompt_caching": True},
    "google": {"context_window": 1_048_576, "max_output": 8_192, "vision": True},
}

# (provider, model-name prefix) -> overrides. Numbers are the vendors' published limits.
MODEL_RULES: dict[tuple[str, str], dict[str, Any]] = {
    # tool search with defer_loading: Claude Opus / Sonnet 4.5 and later; Responses: gpt-5.4 and later
    ("anthropic", "claude-opus-4-6"): {"max_output": 128_000, "thinking": "adaptive", "native_tool_search": True},
    ("anthropic", "claude-sonnet-4-6"): {"max_output": 64_000, "thinking": "adaptive", "native_tool_search": True},
    ("anthropic", "claude-opus-4-5"): {"max_output": 64_000, "thinking": "budget", "native_tool_search": True},
    ("anthropic", "claude-sonnet-4-5"): {"max_output": 64_000, "thinking": "budget", "native_tool_search": True},
    ("anthropic", "claude-opus-4"): {"max_output": 32_000, "thinking": "budget"},
    ("anthropic", "claude-sonnet-4"): {"max_output": 64_000, "thinking": "budget"},
    ("anthropic", "claude-haiku-4"): {"max_output": 64_000, "thinking": "budget"},
    ("anthropic", "claude-3-7-sonnet"): {"max_output": 64_000, "thinking": "budget"},
    ("anthropic", "claude-3-5"): {"max_output": 8_192},
    ("openai", "gpt-4.1"): {"context_window": 1_047_576, "max_output": 32_768, "vision": True},
    ("openai", "gpt-4o"): {"context_window": 128_000, "max_output": 16_384, "vision": True},
    ("openai", "gpt-5"): {"context_window": 400_000, "max_output": 128_000, "vision": True,
                          "thinking": "effort", "temperature": False,
                          "token_param": "max_completion_tokens"},
    ("openai", "gpt-5.4"): {"context_window": 400_000, "max_output": 128_000, "vision": True,
                            "thinking": "effort", "temperature": False,
                            "token_param": "max_completion_tokens", "native_tool_search": True},
    ("openai", "gpt-5.5"): {"context_window": 400_000, "max_output": 128_000, "vision": True,
                            "thinking": "effort", "temperature": False,
                            "token_param": "max_completion_tokens", "native_tool_search": True},
    ("openai", "o3"): {"context_window": 200_000, "max_output": 100_000, "vision": True,
                       "thinking": "effort", "temperature": False,
                       "token_param": "max_completion_tokens"},
    ("openai", "o4-mini"): {"context_window": 200_000, "max_output": 100_000, "vision": True,
                            "thinking": "effort", "temperature": False,
                            "token_param": "max_completion_tokens"},
    ("google", "gemini-2.5"): {"max_output": 65_536, "thinking": "effort"},
    ("google", "gemini-3"): {"max_output": 65_536, "thinking": "effort"},
}

# Providers that use another provider's model rules (same models, another API).
RULES_OF = {"openai-responses": "openai"}
# Providers whose thinking models get their reasoning back on later turns (encrypted reasoning items).
REPLAYS_THINKING = {"openai-responses"}

FIELDS = {f.name for f in dataclasses.fields(Capabilities)}


def builtin_capabilities(provider: str, model: str) -> dict[str, Any]:
    """Provider defaults merged with the longest matching model rule."""
    values = dict(PROVIDER_DEFAULTS.get(provider, {}))
    family = RULES_OF.get(provider, provider)
    name = model.lower().rsplit("/", 1)[-1]  # "models/gemini-2.5-pro", "openai/gpt-4.1"
    matches = [prefix for (prov, prefix) in MODEL_RULES if prov == family and name.startswith(prefix)]
    if matches:
        values.update(MODEL_RULES[(family, max(matches, key=len))])
    if provider in REPLAYS_THINKING and values.get("thinking", "none") != "none":
        values.setdefault("reasoning_replay", True)
    return values


def capabilities_for(settings: ModelSettings) -> Capabilities:
    """The effective capabilities: built-in, then config overrides, then explicit limits.

    Unknown override keys are ignored here (config validation names them).
    """
    values = builtin_capabilities(settings.provider, settings.model)
    values.update({k: v for k, v in settings.capabilities.items() if k in FIELDS})
    if settings.context_window:
        values["context_window"] = settings.context_window
    return Capabilities(**values)


def context_window(settings: ModelSettings) -> int:
    """The context window to measure the prompt against."""
    return capabilities_for(settings).context_window
