"""The real control plane as a subprocess (tests/multiprocess/cluster.py) on its own SQLite file, seeded with two
customers who own peers, a room and an invoice, a support and an admin account; tokens come from real logins."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from controlplane.domain.accounts.models import Role
from controlplane.domain.peers.models import Peer
from controlplane.domain.plans.service import add_plan
from controlplane.services import build_services
from controlplane.settings import Settings
from tests.api.factories import PASSWORD, add_plan_invoice, make_peer, make_server, make_user
from tests.multiprocess.cluster import SMALL_ARGON2, ControlPlaneProcess


@dataclass
class Customer:
    username: str
    alias: str
    user_id: str = ""
    peer_ids: list[str] = field(default_factory=list)
    mirror_tokens: list[str] = field(default_factory=list)
    public_keys: list[str] = field(default_factory=list)
    room_id: str = ""
    room_name: str = ""
    room_password: str = ""
    invoice_id: str = ""
    invoice_remote_id: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    def secrets(self) -> list[str]:
        """Everything of this customer's that another account must never read."""
        return [
            self.username,
            self.alias,
            self.user_id,
            *self.peer_ids,
            *self.mirror_tokens,
            *self.public_keys,
            self.room_id,
            self.room_name,
            self.room_password,
            self.invoice_id,
            self.invoice_remote_id,
        ]


@dataclass
class Deployment:
    url: str
    a: Customer
    b: Customer
    support: dict[str, str]
    admin: dict[str, str]
    server_id: str
    process: ControlPlaneProcess


async def _seed(settings: Settings, a: Customer, b: Customer) -> str:
    services = build_services(settings)
    try:
        await make_user(services, "jefa", role=Role.ADMIN)
        await make_user(services, "ayuda", role=Role.SUPPORT)
        server = await make_server(services, "Habana 1", "10.70.0.0/24")
        async with services.sessionmaker.begin() as db:
            plan = await add_plan(db, "Mensual", 720, Decimal("5.00"))
        for customer, names in ((a, ("movil", "portatil")), (b, ("tablet",))):
            user = await make_user(
                services, customer.username, email=f"{customer.username}@example.test", alias=customer.alias
            )
            customer.user_id = user.id
            for name in names:
                peer = await make_peer(services, user, name, server)
                customer.peer_ids.append(peer.id)
                customer.public_keys.append(peer.public_key)
                customer.mirror_tokens.append(services.box.decrypt(peer.mirror_token_enc))
            async with services.sessionmaker.begin() as db:
                # As if the node had applied them: rooms take only settled peers.
                await db.execute(update(Peer).where(Peer.user_id == user.id).values(pending_operation_id=None))
            async with services.sessionmaker.begin() as db:
                room = await services.rooms.create(db, user.id, f"sala-{customer.username}", customer.peer_ids[0])
                customer.room_id, customer.room_name = room.id, room.name
                customer.room_password = services.box.decrypt(room.password_enc)
                first = await db.get(Peer, customer.peer_ids[0])
                assert first is not None
                invoice = add_plan_invoice(db, f"factura-{customer.username}-{user.id[:8]}", first, plan)
                await db.flush()
                customer.invoice_id, customer.invoice_remote_id = invoice.id, invoice.remote_id
        return server.id
    finally:
        await services.close()


def _login(url: str, path: str, username: str) -> dict[str, str]:
    answer = httpx.post(f"{url}{path}", json={"username": username, "password": PASSWORD}, timeout=30)
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['access']}"}


@pytest.fixture(scope="session")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    workdir = tmp_path_factory.mktemp("adversarial")
    # The hashes' queue bound is raised past what the login burst's 200 hashes take on a host shared with other test
    # layers (its threads run at nice 19): the suite checks who gets in, bench/login_burst.py the shipped 30 s.
    shared = {"VPN_CLIENT_URL": "http://127.0.0.1", "VPN_LOGIN_QUEUE_SECONDS": "110", **SMALL_ARGON2}
    process = ControlPlaneProcess("adversarial", workdir, shared)
    a, b = Customer("cliente_a", "Alias-De-Ana"), Customer("cliente_b", "Alias-De-Beto")
    try:
        process.cli("migrate")
        server_id = asyncio.run(_seed(Settings.from_env(process.env), a, b))
        process.start()
        process.wait_ready()
        a.headers = _login(process.url, "/api/client/login", a.username)
        b.headers = _login(process.url, "/api/client/login", b.username)
        support = _login(process.url, "/api/admin/login", "ayuda")
        admin = _login(process.url, "/api/admin/login", "jefa")
        yield Deployment(process.url, a, b, support, admin, server_id, process)
    finally:
        process.stop()


def document(url: str) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/schema/openapi.json", timeout=30)
    assert answer.status_code == 200
    return answer.json()  # type: ignore[no-any-return]
