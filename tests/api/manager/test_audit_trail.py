"""The request's audit trail (domain/audit/trail.py, written by controlplane/dependencies.py just before the commit):
what a handler notes is written only if its request commits, by the route's declared actions only. Probed with
routes of a small app on the real dependencies, transaction and services, so that each failure happens for real."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar import Litestar, patch
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.dependencies import COMMON_DEPENDENCIES, DB, Audit
from controlplane.domain.accounts.guards import admin_only
from controlplane.domain.accounts.models import Role
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.models import AuditEntry
from controlplane.domain.audit.trail import audited
from controlplane.errors import EXCEPTION_HANDLERS, Conflict
from controlplane.services import Services
from tests.api.factories import bearer, login, make_user
from tests.api.manager.world import audit_count


async def _turn_landing_off(services: Services, db: DB) -> None:
    await services.switches.update(db, {"show_landing": False})


def _probe_app(services: Services) -> Litestar:
    @patch("/fails-after-noting", guards=[admin_only], opt=audited(AuditAction.SWITCHES_UPDATE))
    async def fails_after_noting(db: DB, audit: Audit) -> None:
        await _turn_landing_off(services, db)
        audit.note("switches", None, "show_landing: no")
        raise Conflict("Rechazado después del cambio.", code="probe")

    @patch("/notes-an-undeclared-action", guards=[admin_only], opt=audited(AuditAction.PLAN_CREATE))
    async def notes_an_undeclared_action(db: DB, audit: Audit) -> None:
        await _turn_landing_off(services, db)
        audit.note("switches", None, "show_landing: no", AuditAction.SWITCHES_UPDATE)

    @patch("/declares-nothing", guards=[admin_only])
    async def declares_nothing(db: DB, audit: Audit) -> None:
        await _turn_landing_off(services, db)

    @patch("/notes-two", guards=[admin_only], opt=audited(AuditAction.PEER_RENAME, AuditAction.PEER_UPDATE))
    async def notes_two(db: DB, audit: Audit) -> None:
        await _turn_landing_off(services, db)
        audit.note("peer", "p1", "Peer a renombrado a b", AuditAction.PEER_RENAME)
        audit.note("peer", "p1", "b: active: no", AuditAction.PEER_UPDATE)

    app = Litestar(
        route_handlers=[fails_after_noting, notes_an_undeclared_action, declares_nothing, notes_two],
        dependencies=COMMON_DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
    )
    app.state.services = services
    return app


@pytest.fixture
async def probe(services: Services, client: AsyncTestClient[Any]) -> AsyncIterator[tuple[Any, dict[str, str]]]:
    await make_user(services, "jefa", role=Role.ADMIN)
    admin = bearer(await login(client, "jefa", admin=True))
    async with AsyncTestClient(app=_probe_app(services), base_url="http://testserver.local") as probe_client:
        yield probe_client, admin


async def _landing_shown(client: AsyncTestClient[Any]) -> bool:
    shown: bool = (await client.get("/api/client/")).json()["show_landing"]
    return shown


@pytest.mark.parametrize(
    ("path", "status"), [("/fails-after-noting", 409), ("/notes-an-undeclared-action", 500), ("/declares-nothing", 500)]
)
async def test_a_request_that_fails_leaves_neither_its_change_nor_an_entry(
    services: Services, client: AsyncTestClient[Any], probe: tuple[Any, dict[str, str]], path: str, status: int
) -> None:
    probe_client, admin = probe
    before = await audit_count(services)
    answer = await probe_client.patch(path, headers=admin)
    assert answer.status_code == status, answer.text
    assert await audit_count(services) == before
    assert await _landing_shown(client)  # the switch the handler turned off was rolled back


async def test_a_request_that_commits_writes_its_notes_in_order_with_the_caller(
    services: Services, client: AsyncTestClient[Any], probe: tuple[Any, dict[str, str]]
) -> None:
    probe_client, admin = probe
    answer = await probe_client.patch("/notes-two", headers=admin)
    assert answer.status_code == 200, answer.text
    async with services.sessionmaker() as db:
        entries = (await db.execute(select(AuditEntry).order_by(AuditEntry.created, AuditEntry.id))).scalars().all()
    assert [(e.action, e.summary, e.actor_username) for e in entries] == [
        (AuditAction.PEER_RENAME, "Peer a renombrado a b", "jefa"),
        (AuditAction.PEER_UPDATE, "b: active: no", "jefa"),
    ]
    assert not await _landing_shown(client)
