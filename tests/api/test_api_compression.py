"""The customers' JSON answers travel gzipped when the browser takes gzip; staff answers and small ones do not
(controlplane/api_compression.py)."""

from __future__ import annotations

import gzip
import json
from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role
from controlplane.services import Services
from tests.api.factories import bearer, login, make_peer, make_server, make_user

BROWSER = "gzip, deflate, br, zstd"  # what Chromium sends


async def _raw(client: AsyncTestClient[Any], path: str, headers: dict[str, str]) -> tuple[Any, bytes]:
    """The answer and its body as sent on the wire (httpx would decode the coding)."""
    async with client.stream("GET", path, headers=headers) as answer:
        body = b"".join([chunk async for chunk in answer.aiter_raw()])
    return answer, body


async def test_a_customers_peer_list_comes_gzipped_and_reads_the_same(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    ana = await make_user(services, "ana")
    server = await make_server(services)
    for name in ("movil", "portatil", "tableta"):
        await make_peer(services, ana, name, server)
    auth = bearer(await login(client, "ana"))

    plain, plain_body = await _raw(client, "/api/client/accounts/peers", {**auth, "Accept-Encoding": "identity"})
    packed, packed_body = await _raw(client, "/api/client/accounts/peers", {**auth, "Accept-Encoding": BROWSER})

    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in packed.headers["vary"].lower()
    assert int(packed.headers["content-length"]) == len(packed_body)
    assert len(packed_body) < len(plain_body) / 2  # three peers: well under half on the wire
    assert json.loads(gzip.decompress(packed_body)) == json.loads(plain_body)
    assert [peer["name"] for peer in json.loads(plain_body)] == ["movil", "portatil", "tableta"]
    assert packed.headers["cache-control"] == "no-store"  # compressed or not, no cache keeps it


async def test_small_answers_and_staff_answers_stay_plain(services: Services, client: AsyncTestClient[Any]) -> None:
    ana = await make_user(services, "ana")
    server = await make_server(services)
    for name in ("movil", "portatil", "tableta"):
        await make_peer(services, ana, name, server)
    await make_user(services, "jefa", role=Role.ADMIN)
    staff = bearer(await login(client, "jefa", admin=True))

    status, body = await _raw(client, "/api/client/status", {"Accept-Encoding": BROWSER})
    assert status.status_code == 200 and "content-encoding" not in status.headers
    assert json.loads(body) == {"maintenance": False}

    fleet, body = await _raw(client, "/api/admin/peers/", {**staff, "Accept-Encoding": BROWSER})
    assert fleet.status_code == 200, body
    assert len(body) > 500 and "content-encoding" not in fleet.headers
