"""argon2id's cost is an operator's setting (docs/security.md, "Password hashing"): a host short of memory lowers
it, and the accounts made before keep logging in, their hashes remade at the new cost."""

from __future__ import annotations

from controlplane.passwords import Passwords
from controlplane.settings import PasswordHashing, Settings


def test_the_cost_defaults_to_owasp_46_mib_one_pass_and_follows_the_environment() -> None:
    assert Settings.from_env({}).password_hashing == PasswordHashing(time_cost=1, memory_cost_kib=47104, parallelism=1)
    small = Settings.from_env(
        {"VPN_ARGON2_TIME_COST": "2", "VPN_ARGON2_MEMORY_KIB": "16384", "VPN_ARGON2_PARALLELISM": "1"}
    ).password_hashing
    assert (small.time_cost, small.memory_cost_kib, small.parallelism) == (2, 16384, 1)


async def test_a_hash_made_at_the_old_cost_still_logs_in_and_is_marked_to_be_remade() -> None:
    before = Passwords(PasswordHashing(time_cost=2, memory_cost_kib=16384, parallelism=2))
    after = Passwords(PasswordHashing(time_cost=1, memory_cost_kib=8192, parallelism=1))
    stored = await before.hash("clave-de-ana-1")
    assert await after.verify(stored, "clave-de-ana-1")
    assert not await after.verify(stored, "otra-clave")
    assert after.needs_rehash(stored)
    assert not after.needs_rehash(await after.hash("clave-de-ana-1"))


async def test_a_customer_hash_of_the_old_default_cost_is_remade_at_the_new_default() -> None:
    """Accounts made before session 15 (64 MiB, three passes, four lanes) keep logging in and move to the new cost."""
    old_default = Passwords(PasswordHashing(time_cost=3, memory_cost_kib=65536, parallelism=4))
    current = Passwords(Settings.from_env({}).password_hashing)
    stored = await old_default.hash("clave-de-luis-1")
    assert await current.verify(stored, "clave-de-luis-1")
    assert current.needs_rehash(stored)
