"""Staff set up guest-pass plans on the manager's Planes page: marked as passes, with their price and hours; a pass
longer than a week is refused in Spanish; a pass never shows in the ordinary catalogue, only on a room's page."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.services import Services
from tests.api.manager.world import audit_count, build_world, last_audit

TOO_LONG = "Un pase de invitado dura como máximo 168 horas (7 días)."


async def test_staff_create_a_guest_pass_plan_that_only_rooms_offer(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    created = await client.post(
        "/api/admin/plans",
        json={"name": "Pase 24 h", "validity_hours": 24, "price": "1.5", "guest_pass": True},
        headers=world.admin,
    )
    assert created.status_code == 201, created.text
    assert (created.json()["guest_pass"], created.json()["price"]) == (True, "1.50")
    assert (await last_audit(services)).summary.endswith("24 h, visible, pase de invitado")
    assert [p["name"] for p in (await client.get("/api/client/plans")).json()] == ["Mensual"]
    listed = await client.get("/api/client/guest-passes/plans", headers=world.customer)
    assert [(p["name"], p["hours"]) for p in listed.json()] == [("Pase 24 h", 24)]
    every = (await client.get("/api/admin/plans", headers=world.support)).json()
    assert {p["name"]: p["guest_pass"] for p in every} == {"Mensual": False, "Pase 24 h": True}


async def test_a_guest_pass_longer_than_a_week_is_refused_in_spanish(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    before = await audit_count(services)
    body = {"name": "Pase largo", "validity_hours": 169, "price": "3", "guest_pass": True}
    answer = await client.post("/api/admin/plans", json=body, headers=world.admin)
    assert answer.status_code == 422
    assert answer.json()["message"] == TOO_LONG and answer.json()["fields"] == {"validity_hours": TOO_LONG}
    # Marking a month-long plan as a pass, or lengthening a pass past a week, is refused the same way.
    month = await client.patch(f"/api/admin/plans/{world.ids['plan']}", json={"guest_pass": True}, headers=world.admin)
    assert (month.status_code, month.json()["message"]) == (422, TOO_LONG)
    week = await client.post(
        "/api/admin/plans", json={**body, "validity_hours": 168, "name": "Pase semana"}, headers=world.admin
    )
    assert week.status_code == 201
    longer = await client.patch(
        f"/api/admin/plans/{week.json()['id']}", json={"validity_hours": 200}, headers=world.admin
    )
    assert (longer.status_code, longer.json()["message"]) == (422, TOO_LONG)
    assert await audit_count(services) == before + 1
