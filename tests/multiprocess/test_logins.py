"""Login throttling behind a load balancer: a wait earned through one process holds on the other (the counts live in
Redis), and wrong passwords on the customer login never slow a staff member's manager login on either process."""

from __future__ import annotations

import uuid

import httpx

from tests.multiprocess.cluster import ADMIN, HTTP_TIMEOUT
from tests.multiprocess.conftest import Cluster
from tests.multiprocess.test_two_processes import PASSWORD, new_customer


async def test_a_guesser_slowed_on_one_process_is_slowed_on_the_other(cluster: Cluster) -> None:
    username = await new_customer(cluster.first)
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
        for n in range(5):
            wrong = {"username": username, "password": f"adivinanza-{n}"}
            answer = await http.post(f"{cluster.first.url}/api/client/login", json=wrong)
            assert answer.status_code == 401, answer.text
        right = {"username": username, "password": PASSWORD}
        refused = await http.post(f"{cluster.second.url}/api/client/login", json=right)
        assert refused.status_code == 429, refused.text
        assert int(refused.headers["retry-after"]) >= 1


async def test_customer_login_guesses_never_slow_the_staff_login(cluster: Cluster) -> None:
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
        for n in range(10):  # the old shared per-account limit locked the account at ten
            wrong = {"username": ADMIN[0], "password": f"adivinanza-{uuid.uuid4().hex[:6]}-{n}"}
            answer = await http.post(f"{cluster.processes[n % 2].url}/api/client/login", json=wrong)
            assert answer.status_code in {401, 429}, answer.text
        for process in cluster.processes:
            staff = await http.post(f"{process.url}/api/admin/login", json={"username": ADMIN[0], "password": ADMIN[1]})
            assert staff.status_code == 200, staff.text


async def test_customers_behind_one_address_log_in_through_both_processes_past_the_address_budget(
    cluster: Cluster,
) -> None:
    """Only failures spend an address's budget: each try is counted in Redis when it starts and given back there
    when it succeeds, whichever process served it (docs/security.md, "Logins behind one address")."""
    customers = [await new_customer(cluster.processes[n % 2]) for n in range(30)]
    nat = f"127.0.{uuid.uuid4().int % 250 + 2}.{uuid.uuid4().int % 250 + 2}"
    transport = httpx.AsyncHTTPTransport(local_address=nat)
    statuses = []
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT, transport=transport) as http:
        for _device in range(2):  # 60 logins from one address, more than its 50 tries
            for n, username in enumerate(customers):
                right = {"username": username, "password": PASSWORD}
                answer = await http.post(f"{cluster.processes[n % 2].url}/api/client/login", json=right)
                statuses.append(answer.status_code)
    assert statuses == [200] * 60
