"""A clock that tests move by hand: the control plane reads it (controlplane.db.clock), so time passes without
sleeping."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from controlplane import db


class ManualClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


@contextmanager
def manual_clock(start: datetime | None = None) -> Iterator[ManualClock]:
    """Stopped at `start` (now, whole seconds, by default) until moved; the system clock comes back afterwards."""
    clock = ManualClock(start or db.system_time().replace(microsecond=0))
    previous, db.clock = db.clock, clock
    try:
        yield clock
    finally:
        db.clock = previous
