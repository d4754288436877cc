"""Reconnect delays: quick retries first, then exponential growth with jitter, capped; reset after a healthy
connection (docs/agent-protocol.md, "Refused and reconnecting")."""

from __future__ import annotations

import random

# A control plane that goes away is usually restarting: back within seconds, or within tens of seconds when its host
# is loaded or its database slow to answer. The first retries come about every `initial` (small jitter, so the nodes
# do not all knock in the same millisecond) for about half a minute; only then does the delay grow, so a control
# plane that stays down is not hammered. A refused connection costs the control plane's host next to nothing.
QUICK_ATTEMPTS = 30
QUICK_JITTER = 0.25  # a quick retry waits initial * [0.75, 1.25]


class Backoff:
    """`next_delay()`: for the first QUICK_ATTEMPTS failures in a row about `initial`; then random in
    [ceiling/2, ceiling] with ceiling = min(cap, initial * 2**k) for the k-th later failure. `reset()` after a
    connection the control plane acknowledged (snapshot applied or InSync) starts over."""

    def __init__(
        self,
        initial: float = 1.0,
        cap: float = 30.0,
        rng: random.Random | None = None,
        quick_attempts: int = QUICK_ATTEMPTS,
    ) -> None:
        if initial <= 0 or cap < initial:
            raise ValueError("backoff needs 0 < initial <= cap")
        self.initial = initial
        self.cap = cap
        self.quick_attempts = quick_attempts
        self.attempt = 0  # failures since the last healthy connection
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not security

    def ceiling(self) -> float:
        """The longest the next delay can be."""
        if self.attempt < self.quick_attempts:
            return min(self.cap, self.initial * (1 + QUICK_JITTER))
        return min(self.cap, self.initial * (2 ** (self.attempt - self.quick_attempts + 1)))

    def next_delay(self) -> float:
        quick = self.attempt < self.quick_attempts
        ceiling = self.ceiling()
        self.attempt = min(self.attempt + 1, self.quick_attempts + 32)
        if quick:
            return self._rng.uniform(self.initial * (1 - QUICK_JITTER), ceiling)
        # Full-range jitter spreads the nodes' retries while a control plane stays away.
        return self._rng.uniform(ceiling / 2, ceiling)

    def reset(self) -> None:
        self.attempt = 0
