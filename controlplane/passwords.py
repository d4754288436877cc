"""argon2id password hashing, off the event loop and a few hashes at a time."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from controlplane.errors import TooManyRequests
from controlplane.settings import PasswordHashing

T = TypeVar("T")
HASHING_NICENESS = 19

BUSY_MESSAGE = "Hay demasiadas solicitudes en curso. Intente de nuevo en unos segundos."


def _yield_the_cpu() -> None:
    """Run this hashing thread (and the lane threads argon2 starts from it, which inherit it) at the lowest CPU
    priority: under a login storm the event loop, which answers everyone else, goes first. On an idle host a hash
    still gets every free core; on a saturated one hashes slow down and logins are shed with 429 (the point). Nice
    10 was not enough: bench/login_storm.py measured the peer list's p99 at 1.2-1.5 s under the storm, 24-134 ms at
    19."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASHING_NICENESS)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class HashGate:
    """At most `concurrent` hashes at once, on threads of their own at a low priority; a caller that would
    wait longer than `queue_seconds` for its turn is refused with 429 instead (docs/security.md, "Login storms").
    Without the gate a storm of logins starts a hash per request: each takes a core and tens of MiB, and every
    answer, the storm's and everyone else's, slows down."""

    def __init__(self, concurrent: int, queue_seconds: float) -> None:
        self._concurrent = concurrent
        self._queue_seconds = queue_seconds
        self._threads = ThreadPoolExecutor(concurrent, thread_name_prefix="argon2", initializer=_yield_the_cpu)
        # Created on first use, on the loop that uses it (an asyncio primitive belongs to one loop).
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting = 0

    @property
    def waiting(self) -> int:
        """Callers waiting for a turn now (what a queue looks like to tests and benchmarks)."""
        return self._waiting

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            self._slots, self._loop = asyncio.Semaphore(self._concurrent), loop
        return self._slots

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        slots = self._semaphore()
        self._waiting += 1
        try:
            async with asyncio.timeout(self._queue_seconds):
                await slots.acquire()
        except TimeoutError:
            raise TooManyRequests(math.ceil(self._queue_seconds), BUSY_MESSAGE) from None
        finally:
            self._waiting -= 1
        try:
            yield
        finally:
            slots.release()

    async def compute(self, work: Callable[[], T]) -> T:
        """Run `work` on a hashing thread; call inside a turn."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, work)


class Passwords:
    def __init__(self, params: PasswordHashing) -> None:
        self._hasher = PasswordHasher(
            time_cost=params.time_cost, memory_cost=params.memory_cost_kib, parallelism=params.parallelism
        )
        self._gate = HashGate(params.concurrent or cores(), params.queue_seconds)
        # Verified when the username is unknown, so that the answer takes as long as for a real account. Made on
        # first need, in the worker thread: hashing here blocked start-up (and the event loop) for up to a second.
        self._dummy_hash: str | None = None

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self._hasher.hash("not-a-real-password")
        return self._dummy_hash

    @property
    def waiting(self) -> int:
        return self._gate.waiting

    def turn(self) -> AbstractAsyncContextManager[None]:
        """Wait (a bounded time, else TooManyRequests) for a hashing slot; `verify_in_turn` runs inside it. A login
        also reads its account inside its turn, so a storm holds as many database connections as there are slots."""
        return self._gate.turn()

    async def hash(self, password: str) -> str:
        async with self.turn():
            return await self._gate.compute(lambda: self._hasher.hash(password))

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """Raises TooManyRequests when no slot frees up in time (see HashGate)."""
        async with self.turn():
            return await self.verify_in_turn(password_hash, password)

    async def verify_in_turn(self, password_hash: str | None, password: str) -> bool:
        def check() -> bool:
            try:
                return self._hasher.verify(password_hash or self._dummy(), password) and bool(password_hash)
            except (VerificationError, InvalidHashError):
                return False

        return await self._gate.compute(check)

    def needs_rehash(self, password_hash: str) -> bool:
        return self._hasher.check_needs_rehash(password_hash)
