"""A small world for the manager tests: one account per role, two servers, a customer's peer, a plan, an
announcement and a client release, plus logged-in headers for each role."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from controlplane.domain.accounts.models import Role, User
from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.domain.audit.models import AuditEntry
from controlplane.domain.peers.models import Peer
from controlplane.domain.plans.service import add_plan
from controlplane.services import Services
from tests.api.factories import add_plan_invoice, bearer, login, make_peer, make_server, make_user


@dataclass
class World:
    admin: dict[str, str]
    support: dict[str, str]
    customer: dict[str, str]
    ids: dict[str, str]


async def build_world(services: Services, client: AsyncTestClient[Any]) -> World:
    await make_user(services, "jefa", role=Role.ADMIN)
    await make_user(services, "ayuda", role=Role.SUPPORT)
    ana = await make_user(services, "ana", email="ana@example.test")
    beto = await make_user(services, "beto")
    server = await make_server(services, "Miami 1", "10.8.0.0/24")
    other = await make_server(services, "Madrid 1", "10.9.0.0/24")
    peer = await make_peer(services, ana, "movil", server)
    async with services.sessionmaker.begin() as db:
        # As if the node had confirmed the new peer: it is no longer busy.
        (await db.get(Peer, peer.id)).pending_operation_id = None  # type: ignore[union-attr]
        unverified = await db.get(User, beto.id)
        assert unverified is not None
        unverified.email, unverified.email_verified = "beto@example.test", False
        plan = await add_plan(db, "Mensual", 720, Decimal("5.00"))
        announcement = Announcement(name="Bienvenida", message="Hola")
        release = ClientRelease(version="1.0.0", url="https://example.test/app.apk")
        invoice = add_plan_invoice(
            db,
            f"inv-{peer.id}",
            peer,
            plan,
            gateway_record={"created": {"transaction_uuid": "qp-123", "url": "https://qvapay.example/pay/qp-123"}},
        )
        db.add_all([announcement, release])
        await db.flush()
        ids = {
            "user": ana.id,
            "unverified": beto.id,
            "server": server.id,
            "other_server": other.id,
            "peer": peer.id,
            "plan": plan.id,
            "announcement": announcement.id,
            "release": release.id,
            "invoice": invoice.id,
        }
    return World(
        admin=bearer(await login(client, "jefa", admin=True)),
        support=bearer(await login(client, "ayuda", admin=True)),
        customer=bearer(await login(client, "ana")),
        ids=ids,
    )


async def audit_count(services: Services) -> int:
    async with services.sessionmaker() as db:
        return await db.scalar(select(func.count()).select_from(AuditEntry)) or 0


async def last_audit(services: Services) -> AuditEntry:
    async with services.sessionmaker() as db:
        entry = (await db.execute(select(AuditEntry).order_by(AuditEntry.created.desc()).limit(1))).scalar_one()
    return entry
