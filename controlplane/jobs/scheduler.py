"""Scheduled jobs (APScheduler): peer expiry and its reminder emails, operation timeouts, invoice reconciliation and
expiry, each run once across processes."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import transaction, utcnow
from controlplane.domain.usage.store import roll_up
from controlplane.jobs.lease import acquire, release_all
from controlplane.services import Services

log = logging.getLogger(__name__)

Job = Callable[[AsyncSession], Awaitable[int]]

# The lease must outlast a run: with a lease shorter than the job, a slow run (a busy database, thousands of
# expired peers) lets a second process take the lease and run the same job at the same time. The holder renews
# the lease every time its job fires, so it keeps the job; another process takes over once the holder has
# stopped renewing for this long.
MIN_LEASE_SECONDS = 60.0
# Shutdown: how long runs in progress may take to finish before they are cancelled.
STOP_WITHIN_SECONDS = 10.0


class Jobs:
    def __init__(self, services: Services) -> None:
        self._services = services
        self._holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._scheduler = AsyncIOScheduler(timezone="UTC")
        self._running: set[asyncio.Task[Any]] = set()
        self.register("expire_peers", services.peers.expire_due, seconds=services.settings.expiry_interval_seconds)
        self.register("operation_timeouts", services.operations.expire_overdue, seconds=5)
        self.register("reconcile_invoices", services.invoices.reconcile, seconds=60)
        self.register("expire_invoices", services.invoices.expire_stale, seconds=300)
        # A guest pass's peer is deleted when its hours are over (the expiry job has disabled it by then or soon).
        self.register(
            "end_guest_passes", services.guest_passes.end_due, seconds=services.settings.expiry_interval_seconds
        )
        # Usage history: hourly rows past 30 days into days, days past a year out (docs/usage.md).
        self.register("roll_up_usage", lambda db: roll_up(db, utcnow()), seconds=3600)
        self.register(
            "expiry_reminders", services.reminders.send_due, seconds=services.settings.reminder_interval_seconds
        )

    def register(self, name: str, job: Job, seconds: float) -> None:
        self._scheduler.add_job(
            self.run_once,
            "interval",
            seconds=seconds,
            args=[name, job, seconds],
            id=name,
            max_instances=1,
            coalesce=True,
        )

    async def run_once(self, name: str, job: Job, lease_seconds: float) -> int | None:
        """Run `job` if this process holds its lease; None when another process does."""
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        lease = max(lease_seconds * 0.9, MIN_LEASE_SECONDS)
        if not await acquire(self._services.sessionmaker, name, self._holder, lease):
            return None
        try:
            async with transaction(self._services.sessionmaker) as db:
                done = await job(db)
            if done:
                log.info("job %s handled %d item(s)", name, done)
            return done
        except Exception:
            log.exception("job %s failed", name)
            return None

    def start(self) -> None:
        self._scheduler.start()

    async def stop(self) -> None:
        """No new runs; the runs in progress finish before the database closes. APScheduler's shutdown cancels
        them: a job cut in the middle logged an error at every stop, and a reminder job could send a mail and lose
        the record that it did (sending it again at the next start)."""
        self._scheduler.pause()
        running = {task for task in self._running if not task.done()}
        if running:
            _, late = await asyncio.wait(running, timeout=STOP_WITHIN_SECONDS)
            if late:
                log.warning("%d jobs still running at shutdown were cancelled", len(late))
        self._scheduler.shutdown(wait=False)
        try:
            async with asyncio.timeout(STOP_WITHIN_SECONDS):
                await release_all(self._services.sessionmaker, self._holder)
        except Exception:  # the database is away: the leases simply run out, as after a crash
            log.warning("could not release the job leases at shutdown; other processes take over once they expire")
