"""What a request costs: prices per model from config, else built-in estimates.

Prices are USD per million tokens: `input`, `output`, `cache_read`, `cache_write`. A
`[models.<alias>.price]` table in the config wins; otherwise the longest built-in prefix
matching the model name gives an estimate (list prices as published, which change: the
result is marked `estimated`). Local models without a price cost nothing known (None).
"""

from __future__ import annotations

from dataclasses import dataclass

# model-name prefix -> (input, output, cache_read, cache_write) per million tokens
BUILTIN_PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4-6": (5.0, 25.0, 0.5, 6.25),
    "claude-opus-4-5": (5.0, 25.0, 0.5, 6.25),
    "claude-opus-4": (15.0, 75.0, 1.5, 18.75),
    "claude-sonnet-4": (3.0, 15.0, 0.3, 3.75),
    "claude-3-7-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4": (1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": (0.8, 4.0, 0.08, 1.0),
    "gpt-4.1-nano": (0.1, 0.4, 0.025, 0.1),
    "gpt-4.1-mini": (0.4, 1.6, 0.1, 0.4),
    "gpt-4.1": (2.0, 8.0, 0.5, 2.0),
    "gpt-4o-mini": (0.15, 0.6, 0.075, 0.15),
    "gpt-4o": (2.5, 10.0, 1.25, 2.5),
    "gpt-5-nano": (0.05, 0.4, 0.005, 0.05),
    "gpt-5-mini": (0.25, 2.0, 0.025, 0.25),
    "gpt-5": (1.25, 10.0, 0.125, 1.25),
    "o3": (2.0, 8.0, 0.5, 2.0),
    "o4-mini": (1.1, 4.4, 0.275, 1.1),
    "gemini-2.5-pro": (1.25, 10.0, 0.31, 1.25),
    "gemini-2.5-flash-lite": (0.1, 0.4, 0.025, 0.1),
    "gemini-2.5-flash": (0.3, 2.5, 0.075, 0.3),
    "gemini-2.0-flash": (0.1, 0.4, 0.025, 0.1),
}


@dataclass(frozen=True)
class Price:
    """USD per million tokens; `estimated` when it is a built-in default, not the user's."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    estimated: bool = False


def price_for(model: str, configured: dict[str, float] | None = None) -> Price | None:
    """The configured price (missing cache prices default to input), else a built-in estimate."""
    if configured:
        inp = float(configured.get("input", 0.0))
        return Price(inp, float(configured.get("output", 0.0)),
                     float(configured.get("cache_read", inp)),
                     float(configured.get("cache_write", inp)))
    name = model.lower().rsplit("/", 1)[-1]
    matches = [prefix for prefix in BUILTIN_PRICES if name.startswith(prefix)]
    if not matches:
        return None
    return Price(*BUILTIN_PRICES[max(matches, key=len)], estimated=True)


def cost(price: Price | None, *, prompt_tokens: int, completion_tokens: int,
         cache_read_tokens: int = 0, cache_write_tokens: int = 0) -> float | None:
    """USD for one request. `prompt_tokens` includes the cached parts (see UsageChunk)."""
    if price is None:
        return None
    uncached = max(0, prompt_tokens - cache_read_tokens - cache_write_tokens)
    return (uncached * price.input + completion_tokens * price.output
            + cache_read_tokens * price.cache_read
            + cache_write_tokens * price.cache_write) / 1_000_000


def format_cost(usd: float | None, estimated: bool = False) -> str:
    """"$0.0123", "~$1.20" for estimates, "—" when unknown."""
    if usd is None:
        return "—"
    text = f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"
    return ("~" if estimated else "") + text
