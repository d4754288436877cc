"""Reconnect delays: exponential growth with full jitter, capped, reset after a healthy connection."""

from __future__ import annotations

import random


class Backoff:
    """`next_delay()` gives a random delay in [initial/2, min(cap, initial * 2**n)]; `reset()` starts over."""

    def __init__(self, initial: float = 1.0, cap: float = 30.0, rng: random.Random | None = None) -> None:
        if initial <= 0 or cap < initial:
            raise ValueError("backoff needs 0 < initial <= cap")
        self.initial = initial
        self.cap = cap
        self.attempt = 0
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not security

    def ceiling(self) -> float:
        return min(self.cap, self.initial * (2**self.attempt))

    def next_delay(self) -> float:
        # Jitter spreads reconnects of many nodes after a control-plane restart; the floor avoids a hot loop.
        ceiling = self.ceiling()
        self.attempt = min(self.attempt + 1, 32)
        return self._rng.uniform(min(self.initial / 2, ceiling), ceiling)

    def reset(self) -> None:
        self.attempt = 0
