"""Capped exponential backoff with jitter, for reconnecting to the broker (pure)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(slots=True)
class Backoff:
    """Delays of ``initial * 2**n`` capped at `maximum`, each drawn in [half, full] of that.

    Half-jitter keeps tables that lost the same broker from reconnecting in
    lockstep, while never retrying at once in a tight loop. `reset()` after a
    successful connection.
    """

    initial: float
    maximum: float
    rng: random.Random = field(default_factory=random.Random)
    attempts: int = 0

    def next_delay(self) -> float:
        ceiling: float = min(self.maximum, self.initial * 2.0 ** min(self.attempts, 62))
        self.attempts += 1
        jitter: float = self.rng.uniform(0.0, ceiling / 2)
        return ceiling / 2 + jitter

    def reset(self) -> None:
        self.attempts = 0
