"""Builders for test data: accounts straight through the service, sessions through the real login endpoint."""

from __future__ import annotations

from typing import Any

import httpx
from litestar.testing import AsyncTestClient
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.accounts.models import Role, User
from controlplane.domain.invoices.models import Invoice, InvoiceMode
from controlplane.domain.peers.models import Peer
from controlplane.domain.plans.models import Plan
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerInput
from controlplane.services import Services
from controlplane.wgkeys import generate_keypair

PASSWORD = "contraseña-segura-1"


async def make_user(
    services: Services,
    username: str = "ana",
    password: str = PASSWORD,
    role: Role = Role.CUSTOMER,
    email: str | None = None,
    alias: str | None = None,
) -> User:
    async with services.sessionmaker.begin() as db:
        user = await services.accounts.create_user(db, username, password, role)
        if email:
            user.email, user.email_verified = email, True
        if alias:
            user.alias, user.alias_key = alias, alias.lower()
    return user


async def login(
    client: httpx.AsyncClient,
    username: str = "ana",
    password: str = PASSWORD,
    admin: bool = False,
) -> dict[str, str]:
    path = "/api/admin/login" if admin else "/api/client/login"
    answer = await client.post(path, json={"username": username, "password": password, "remember": True})
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def bearer(tokens: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens['access']}"}


async def logged_in(
    services: Services, client: AsyncTestClient[Any], username: str = "ana", **kw: Any
) -> dict[str, str]:
    """Create a customer and return the Authorization header of a fresh session."""
    await make_user(services, username, **kw)
    return bearer(await login(client, username))


async def make_server(
    services: Services,
    name: str = "Miami 1",
    subnet: str = "10.8.0.0/24",
    *,
    active: bool = True,
    allow_partys: bool = True,
    ready: bool = True,
) -> Server:
    """A server; `ready` gives it a node public key and a recent heartbeat, as if its agent were connected."""
    async with services.sessionmaker.begin() as db:
        server, _ = await services.servers.create(
            db,
            ServerInput(
                name=name,
                address=f"{name.lower().replace(' ', '')}.vpn.test",
                tunnel_subnet=subnet,
                ubication="Miami",
                active=active,
                allow_partys=allow_partys,
            ),
        )
        if ready:
            server.public_key = generate_keypair()[1]
            server.last_seen = utcnow()  # and is connected now (moves are refused to an offline server)
    return server


async def make_peer(services: Services, user: User, name: str = "movil", server: Server | None = None) -> Peer:
    async with services.sessionmaker.begin() as db:
        target = await db.get(Server, server.id) if server else None
        peer = await services.peers.create(db, user.id, name, server=target)
    return peer


def add_plan_invoice(db: AsyncSession, remote_id: str, peer: Peer, plan: Plan, **extra: Any) -> Invoice:
    """A pending QvaPay invoice (unless `extra` says otherwise) extending `peer` by `plan`, added to `db` (the
    caller flushes)."""
    invoice = Invoice(
        remote_id=remote_id,
        user_id=peer.user_id,
        gateway=extra.pop("gateway", "qvapay"),
        mode=InvoiceMode.ADD_PLAN,
        plan_id=plan.id,
        plan_name=plan.name,
        validity_hours=plan.validity_hours,
        amount=plan.price,
        peer_id=peer.id,
        peer_name=peer.name,
        **extra,
    )
    db.add(invoice)
    return invoice
