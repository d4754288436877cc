"""Reconnect delays grow, stay jittered under the cap, and start over after a healthy connection."""

from __future__ import annotations

import random

import pytest

from node_agent.backoff import Backoff


def test_delays_grow_then_stay_under_the_cap() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(1))
    ceilings = []
    for _ in range(10):
        ceilings.append(backoff.ceiling())
        delay = backoff.next_delay()
        assert 0.5 <= delay <= 30.0
    assert ceilings[:6] == [1, 2, 4, 8, 16, 30]
    assert max(ceilings) == 30


def test_delays_are_jittered() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(2))
    for _ in range(6):
        backoff.next_delay()
    assert len({round(backoff.next_delay(), 6) for _ in range(20)}) > 10


def test_reset_starts_over() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(3))
    for _ in range(8):
        backoff.next_delay()
    backoff.reset()
    assert backoff.next_delay() <= 1.0


def test_nonsense_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        Backoff(10, 1)
