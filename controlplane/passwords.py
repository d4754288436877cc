"""argon2id password hashing, run off the event loop."""

from __future__ import annotations

import anyio.to_thread
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from controlplane.settings import PasswordHashing


class Passwords:
    def __init__(self, params: PasswordHashing) -> None:
        self._hasher = PasswordHasher(
            time_cost=params.time_cost, memory_cost=params.memory_cost_kib, parallelism=params.parallelism
        )
        # Verified when the username is unknown, so that the answer takes as long as for a real account. Made on
        # first need, in the worker thread: hashing here blocked start-up (and the event loop) for up to a second.
        self._dummy_hash: str | None = None

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self._hasher.hash("not-a-real-password")
        return self._dummy_hash

    async def hash(self, password: str) -> str:
        return await anyio.to_thread.run_sync(self._hasher.hash, password)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        def check() -> bool:
            try:
                return self._hasher.verify(password_hash or self._dummy(), password) and bool(password_hash)
            except (VerificationError, InvalidHashError):
                return False

        return await anyio.to_thread.run_sync(check)

    def needs_rehash(self, password_hash: str) -> bool:
        return self._hasher.check_needs_rehash(password_hash)
