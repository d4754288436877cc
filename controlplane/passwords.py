"""argon2id password hashing, off the event loop and a few hashes at a time, the customers' first."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import math
import os
import threading
from collections import deque
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
    still gets every free core; on a saturated one hashes slow down and logins wait their turn (the point). Nice
    10 was not enough: bench/login_storm.py measured the peer list's p99 at 1.2-1.5 s under the storm, 24-134 ms at
    19."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASHING_NICENESS)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Priority(enum.IntEnum):
    """Who goes first when hashes queue (lower first; in order of arrival within one level). docs/security.md,
    "Login storms": a burst of logins for names nobody has waits behind the customers'."""

    RETURNING = 0  # a login for an account that signed in from the same address recently
    KNOWN = 1  # a login for an existing account; registration and password changes
    UNKNOWN = 2  # a login for a name no account has (the dummy hash, so that it answers as slowly)


class HashGate:
    """At most `concurrent` hashes at once, on threads of their own at a low priority; the others wait their turn
    in order of priority, then of arrival. A caller that would wait longer than `queue_seconds` is refused with 429,
    and so is one that finds `max_waiting` callers waiting, unless one of them has a lower priority: the newest of
    the lowest is refused in its stead (docs/security.md, "Login storms").
    Without the gate a storm of logins starts a hash per request: each takes a core and tens of MiB, and every
    answer, the storm's and everyone else's, slows down."""

    def __init__(self, concurrent: int, queue_seconds: float, max_waiting: int = 1000) -> None:
        self._concurrent = concurrent
        self._queue_seconds = queue_seconds
        self._max_waiting = max_waiting
        self._threads = ThreadPoolExecutor(concurrent, thread_name_prefix="argon2", initializer=_yield_the_cpu)
        self._free = concurrent
        # One line per priority; a turn is handed over by resolving the first waiter's future. The futures belong
        # to the loop that made them: the gate serves one loop at a time (the app's), tests may bring a new one.
        self._lines: list[deque[asyncio.Future[None]]] = [deque() for _ in Priority]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting = 0

    @property
    def waiting(self) -> int:
        """Callers waiting for a turn now (what a queue looks like to tests and benchmarks)."""
        return self._waiting

    def _check_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new loop (tests): nothing of the old one's can be waited for here
            self._loop, self._free, self._waiting = loop, self._concurrent, 0
            self._lines = [deque() for _ in Priority]

    def _make_room(self, priority: Priority) -> None:
        """Refuse at once when `max_waiting` wait already; or refuse the newest of a lower priority in our stead."""
        if self._waiting < self._max_waiting:
            return
        for lower in reversed(Priority):
            if lower <= priority:
                break
            line = self._lines[lower]
            while line:
                bumped = line.pop()
                if not bumped.done():
                    bumped.set_exception(TooManyRequests(math.ceil(self._queue_seconds), BUSY_MESSAGE))
                    return
        raise TooManyRequests(math.ceil(self._queue_seconds), BUSY_MESSAGE)

    def _hand_over(self) -> None:
        """A turn is free: give it to the first waiter in the first line that has one."""
        for line in self._lines:
            while line:
                waiter = line.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self._free += 1

    async def _acquire(self, priority: Priority) -> None:
        self._check_loop()
        if self._free:  # a turn is left free only when nobody waited for it
            self._free -= 1
            return
        self._make_room(priority)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines[priority].append(waiter)
        self._waiting += 1
        try:
            async with asyncio.timeout(self._queue_seconds):
                await asyncio.shield(waiter)
        except TimeoutError:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                return  # the turn came as the time ran out: take it
            waiter.cancel()
            raise TooManyRequests(math.ceil(self._queue_seconds), BUSY_MESSAGE) from None
        except asyncio.CancelledError:  # the request went away while waiting
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._hand_over()  # it was handed a turn it will not use
            waiter.cancel()
            raise
        finally:
            self._waiting -= 1

    @asynccontextmanager
    async def turn(self, priority: Priority = Priority.KNOWN) -> AsyncIterator[None]:
        await self._acquire(priority)
        try:
            yield
        finally:
            self._hand_over()

    async def compute(self, work: Callable[[], T]) -> T:
        """Run `work` on a hashing thread; call inside a turn."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, work)


class Passwords:
    def __init__(self, params: PasswordHashing) -> None:
        self._hasher = PasswordHasher(
            time_cost=params.time_cost, memory_cost=params.memory_cost_kib, parallelism=params.parallelism
        )
        self._gate = HashGate(params.concurrent or cores(), params.queue_seconds, params.max_waiting)
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

    def turn(self, priority: Priority = Priority.KNOWN) -> AbstractAsyncContextManager[None]:
        """Wait (a bounded time, else TooManyRequests) for a hashing slot; `verify_in_turn` runs inside it."""
        return self._gate.turn(priority)

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

    async def rehash_in_turn(self, password_hash: str | None, password: str) -> str | None:
        """A hash of `password` with the current parameters when `password_hash` was made with others, else None."""
        if password_hash is None or not self.needs_rehash(password_hash):
            return None
        return await self._gate.compute(lambda: self._hasher.hash(password))

    def needs_rehash(self, password_hash: str) -> bool:
        return self._hasher.check_needs_rehash(password_hash)
