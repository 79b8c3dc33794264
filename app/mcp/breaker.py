"""A per-server circuit breaker: closed → open after N consecutive transport failures → half-open.

Only transport failures count (the process died, the connection dropped, a handshake or call
timed out). Protocol errors from a healthy server (an unknown tool, bad arguments, isError
results) are answers, not failures, and never trip it.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class CircuitBreaker:
    threshold: int = 3
    base_delay: float = 1.0
    max_delay: float = 300.0
    jitter: float = 0.25  # the delay is scaled by a random factor in [1 - jitter, 1 + jitter]
    clock: Callable[[], float] = time.monotonic
    rng: random.Random = field(default_factory=random.Random)
    failures: int = 0
    opened_at: float | None = None
    retry_at: float | None = None
    last_error: str = ""

    @property
    def state(self) -> str:
        """'closed', 'open' (failing fast until `retry_at`) or 'half-open' (one trial allowed)."""
        if self.failures < self.threshold:
            return "closed"
        if self.retry_at is not None and self.clock() < self.retry_at:
            return "open"
        return "half-open"

    def delay(self) -> float:
        """The wait before the next attempt after `failures` consecutive failures (0 when none)."""
        if self.failures == 0:
            return 0.0
        raw = min(self.max_delay, self.base_delay * 2 ** (self.failures - 1))
        return max(0.0, raw * (1 + self.rng.uniform(-self.jitter, self.jitter)))

    def record_failure(self, reason: str) -> None:
        self.failures += 1
        self.last_error = reason
        self.retry_at = self.clock() + self.delay()
        if self.failures >= self.threshold and self.opened_at is None:
            self.opened_at = self.clock()

    def record_success(self) -> None:
        self.failures = 0
        self.opened_at = None
        self.retry_at = None
        self.last_error = ""

    def allow(self) -> bool:
        """May a request go out now? False only while open."""
        return self.failures < self.threshold or self.state != "open"

    def seconds_until_retry(self) -> float:
        return max(0.0, (self.retry_at or 0.0) - self.clock())

    def reset_wait(self) -> None:
        """Allow an attempt at once (manual reconnect): the next failure still counts."""
        self.retry_at = None
