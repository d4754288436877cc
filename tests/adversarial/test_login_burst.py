"""Logins hold against the real control plane (the suite's subprocess, the shipped limits, no captcha configured):
customers behind one carrier-grade NAT all get in, 200 genuine logins at once all get in, and a burst of unknown
names from one address meets a limit of its own while a customer back at that address still gets in
(docs/security.md, "Logins behind one address", "Login storms").

Each customer comes from a loopback address of its own (the process sees 127.x.y.z as the client's address), as
the session-ending cases do; a NAT is one loopback address that many customers share."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import Counter

import httpx
from argon2 import PasswordHasher

from controlplane.domain.accounts.models import User
from controlplane.services import build_services
from controlplane.settings import RateLimits, Settings
from tests.adversarial.conftest import Deployment
from tests.api.factories import PASSWORD

WAIT = 120  # seconds; a bound, not a figure: 200 hashes queue on two cores shared with other layers
LOGIN = "/api/client/login"


def loopback_address() -> str:
    return "127." + ".".join(str(random.randrange(2, 250)) for _ in range(3))


def client_from(deployment: Deployment, address: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=deployment.url, timeout=WAIT, transport=transport)


async def log_in(deployment: Deployment, address: str, username: str, password: str = PASSWORD) -> httpx.Response:
    async with client_from(deployment, address) as http:
        return await http.post(LOGIN, json={"username": username, "password": password})


async def register(deployment: Deployment, count: int) -> list[str]:
    """`count` customers, each registered from an address of its own (10 registrations an hour per address)."""
    names = [f"nat{uuid.uuid4().hex[:10]}" for _ in range(count)]
    for name in names:
        async with client_from(deployment, loopback_address()) as http:
            answer = await http.put("/api/client/register", json={"username": name, "password": PASSWORD})
        assert answer.status_code == 201, answer.text
    return names


async def test_fifty_customers_behind_one_nat_all_log_in_on_two_devices(deployment: Deployment) -> None:
    customers = await register(deployment, 50)
    nat = loopback_address()
    statuses: Counter[int] = Counter()
    for _device in ("movil", "portatil"):
        for name in customers:
            statuses[(await log_in(deployment, nat, name)).status_code] += 1
    assert statuses == {200: 100}


async def test_a_burst_of_unknown_names_from_a_nat_is_capped_while_its_returning_customer_gets_in(
    deployment: Deployment,
) -> None:
    [customer] = await register(deployment, 1)
    nat = loopback_address()
    assert (await log_in(deployment, nat, customer)).status_code == 200  # the customer's usual address
    budget = RateLimits().login_per_address.attempts
    async with client_from(deployment, nat) as http:
        burst = [
            (await http.post(LOGIN, json={"username": f"nadie{uuid.uuid4().hex[:8]}", "password": "x" * 8})).status_code
            for _ in range(budget + 20)
        ]
    assert Counter(burst) == {401: budget, 429: 20}
    stranger = await log_in(deployment, nat, f"nadie{uuid.uuid4().hex[:8]}")
    assert stranger.status_code == 429 and stranger.json()["code"] == "too_many_requests"
    answer = await log_in(deployment, nat, customer)
    assert answer.status_code == 200, answer.text


async def test_two_hundred_genuine_logins_at_once_from_200_addresses_all_get_in(deployment: Deployment) -> None:
    # Written straight into the database with a dearer hash than the suite's small cost (SMALL_ARGON2), so that 200
    # of them queue for seconds as production hashes do for longer; registering 200 through the API would need
    # 20 addresses' worth of registration budget and tell nothing more. The first login remakes each hash.
    names = [f"ola{uuid.uuid4().hex[:10]}" for _ in range(200)]
    password_hash = PasswordHasher(time_cost=1, memory_cost=16 * 1024, parallelism=1).hash(PASSWORD)
    services = build_services(Settings.from_env(deployment.process.env))
    try:
        async with services.sessionmaker.begin() as db:
            db.add_all(User(username=name, username_key=name, password_hash=password_hash) for name in names)
    finally:
        await services.close()

    answers = await asyncio.gather(*(log_in(deployment, loopback_address(), name) for name in names))
    assert Counter(answer.status_code for answer in answers) == {200: 200}, {
        a.text for a in answers if a.status_code != 200
    }
