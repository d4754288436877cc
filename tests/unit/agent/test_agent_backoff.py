"""Reconnect delays: about a second at first (a restarting control plane is back within seconds), growing only
while failures repeat, jittered under the cap, starting over after a healthy connection."""

from __future__ import annotations

import random

import pytest

from node_agent.backoff import QUICK_ATTEMPTS, Backoff


def test_a_control_plane_that_went_away_is_retried_within_about_a_second() -> None:
    # 1 000 nodes after a restart: every one of them knocks again between 0.75 and 1.25 s, not up to 30 s later.
    for seed in range(1000):
        delay = Backoff(1.0, 30.0, random.Random(seed)).next_delay()
        assert 0.75 <= delay <= 1.25


def test_the_quick_retries_last_about_as_long_as_a_restart() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(1))
    quick = [backoff.next_delay() for _ in range(QUICK_ATTEMPTS)]
    assert all(0.75 <= d <= 1.25 for d in quick)
    assert 0.75 * QUICK_ATTEMPTS <= sum(quick) <= 1.25 * QUICK_ATTEMPTS  # ~30 s of retries before it grows


def test_delays_grow_on_repeated_failures_then_stay_under_the_cap() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(2))
    for _ in range(QUICK_ATTEMPTS):
        backoff.next_delay()
    ceilings = []
    for _ in range(10):
        ceilings.append(backoff.ceiling())
        delay = backoff.next_delay()
        assert ceilings[-1] / 2 <= delay <= ceilings[-1] <= 30.0
    assert ceilings[:6] == [2, 4, 8, 16, 30, 30]


def test_delays_are_jittered() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(3))
    assert len({round(backoff.next_delay(), 6) for _ in range(QUICK_ATTEMPTS)}) == QUICK_ATTEMPTS
    for _ in range(6):
        backoff.next_delay()
    assert len({round(backoff.next_delay(), 6) for _ in range(20)}) > 10


def test_reset_after_a_healthy_connection_starts_over() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(4))
    for _ in range(QUICK_ATTEMPTS + 8):
        backoff.next_delay()
    assert backoff.ceiling() == 30
    backoff.reset()
    assert 0.75 <= backoff.next_delay() <= 1.25


def test_a_small_cap_bounds_the_quick_retries_too() -> None:
    backoff = Backoff(0.05, 0.06, random.Random(5))
    assert all(0.025 <= backoff.next_delay() <= 0.06 for _ in range(QUICK_ATTEMPTS + 5))


def test_nonsense_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        Backoff(10, 1)
