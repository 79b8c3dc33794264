"""Retry a provider stream with exponential backoff, but only before its first chunk.

Once chunks have flowed the partial answer is already on screen, so a failure then is
reported, not silently replayed. Each wait is announced through `notify` in words.
"""

from __future__ import annotations

import asyncio
import random
from typing import AsyncIterator, Awaitable, Callable

from app.providers.base import Chunk, ProviderError


def backoff_delay(retry: int, err: ProviderError, *, base_delay: float, max_delay: float,
                  rand: Callable[[], float] = random.random) -> float:
    """Seconds to wait before retry number `retry` (1-based).

    A server's Retry-After wins (capped at `max_delay`); otherwise base * 2^(retry-1),
    capped, with ±25 % jitter so many workstreams don't retry in lockstep.
    """
    if err.retry_after is not None:
        return min(max(err.retry_after, 0.0), max_delay)
    delay = min(base_delay * 2 ** (retry - 1), max_delay)
    return min(delay * (0.75 + 0.5 * rand()), max_delay)


def describe(err: ProviderError) -> str:
    """A short label for the failure: "Rate limited (429)", "Server error 500", …"""
    if err.status == 429:
        return "Rate limited (429)"
    if err.status is not None:
        return f"Server error {err.status}"
    text = err.message or "Request failed"
    return text[0].upper() + text[1:]


async def _aclose(stream: AsyncIterator[Chunk]) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


async def stream_with_retry(
    open_stream: Callable[[], AsyncIterator[Chunk]],
    *,
    notify: Callable[[str], None],
    max_retries: int = 4,
    base_delay: float = 1.0,
    max_delay: float = 30.0,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> AsyncIterator[Chunk]:
    """Yield the chunks of `open_stream()`, reopening it after retryable early failures.

    Non-retryable errors, errors after the first chunk, and the error of the last of
    `max_retries + 1` attempts propagate unchanged.
    """
    attempts = max_retries + 1
    for attempt in range(1, attempts + 1):
        stream = open_stream()
        started = False
        try:
            async for chunk in stream:
                started = True
                yield chunk
            return
        except ProviderError as err:
            if started or not err.retryable or attempt == attempts:
                raise
            delay = backoff_delay(attempt, err, base_delay=base_delay, max_delay=max_delay)
            notify(f"{describe(err)} — retrying in {delay:.1f} s "
                   f"(attempt {attempt + 1} of {attempts})")
        finally:
            await _aclose(stream)
        await sleep(delay)
