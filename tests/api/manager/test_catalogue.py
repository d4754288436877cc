"""Plans, announcements and client releases published from the manager reach the customer pages."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from controlplane.domain.plans.models import Plan
from controlplane.services import Services
from tests.api.manager.world import audit_count, build_world


async def test_plan_create_edit_hide(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    created = await client.post(
        "/api/admin/plans",
        json={"name": "Anual", "validity_hours": 8760, "price": "40.5", "description": "Un año"},
        headers=world.admin,
    )
    assert created.status_code == 201 and created.json()["price"] == "40.50"
    plan_id = created.json()["id"]
    public = (await client.get("/api/client/plans")).json()
    assert {p["name"]: p["validity"] for p in public} == {"Mensual": "30 00:00:00", "Anual": "365 00:00:00"}
    edited = await client.patch(f"/api/admin/plans/{plan_id}", json={"price": "39.99"}, headers=world.admin)
    assert edited.json()["price"] == "39.99"
    await client.patch(f"/api/admin/plans/{plan_id}", json={"visible": False}, headers=world.admin)
    assert [p["name"] for p in (await client.get("/api/client/plans")).json()] == ["Mensual"]
    every = (await client.get("/api/admin/plans", headers=world.support)).json()
    assert {p["name"]: p["visible"] for p in every} == {"Mensual": True, "Anual": False}


async def test_bad_plans_are_refused_whole(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    before = await audit_count(services)
    bad_price = "El precio debe ser un número mayor que cero con hasta dos decimales."
    cases = [
        ({"name": "X", "validity_hours": 24, "price": "0"}, bad_price),
        ({"name": "X", "validity_hours": 24, "price": "1.234"}, bad_price),
        ({"name": "X", "validity_hours": 24, "price": "gratis"}, bad_price),
        ({"name": "  ", "validity_hours": 24, "price": "1"}, "El nombre es obligatorio."),
        (
            {"name": "X", "validity_hours": 0, "price": "1"},
            "Validez (horas): debe ser como mínimo 1.",
        ),
        ({"name": "X", "price": "1"}, "Validez (horas): campo obligatorio."),
    ]
    for body, message in cases:
        answer = await client.post("/api/admin/plans", json=body, headers=world.admin)
        assert answer.status_code == 422 and answer.json()["message"] == message, body
    edit = await client.patch(f"/api/admin/plans/{world.ids['plan']}", json={"price": "-3"}, headers=world.admin)
    assert edit.status_code == 422 and edit.json()["fields"] == {"price": "Precio inválido."}
    async with services.sessionmaker() as db:
        assert await db.scalar(select(func.count()).select_from(Plan)) == 1
        assert str((await db.get(Plan, world.ids["plan"])).price) == "5.00"  # type: ignore[union-attr]
    assert await audit_count(services) == before


async def test_announcements_reach_the_customer_home(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    created = await client.post(
        "/api/admin/announcements", json={"name": "Nuevo servidor", "message": "Ya está Madrid"}, headers=world.admin
    )
    assert created.status_code == 201
    home = (await client.get("/api/client/advertisements", headers=world.customer)).json()
    assert [a["name"] for a in home] == ["Nuevo servidor", "Bienvenida"]
    await client.patch(
        f"/api/admin/announcements/{world.ids['announcement']}", json={"visible": False}, headers=world.admin
    )
    await client.delete(f"/api/admin/announcements/{created.json()['id']}", headers=world.admin)
    assert (await client.get("/api/client/advertisements", headers=world.customer)).json() == []
    blank = await client.post("/api/admin/announcements", json={"name": "x", "message": " "}, headers=world.admin)
    assert blank.status_code == 422 and blank.json()["message"] == "El mensaje es obligatorio."
    gone = await client.delete(f"/api/admin/announcements/{created.json()['id']}", headers=world.admin)
    assert gone.status_code == 404 and gone.json()["message"] == "Anuncio no encontrado."


async def test_client_releases_drive_the_new_version_notice(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    answer = await client.post(
        "/api/admin/client-releases",
        json={"version": "1.2.0", "url": "https://example.test/1.2.apk"},
        headers=world.admin,
    )
    assert answer.status_code == 201
    latest = (await client.get("/api/client/agent", headers=world.customer)).json()
    assert latest == {"version": "1.2.0", "url": "https://example.test/1.2.apk"}
    bad = await client.post("/api/admin/client-releases", json={"version": "v2", "url": "x"}, headers=world.admin)
    assert bad.status_code == 422 and bad.json()["message"] == "La versión debe tener la forma 1.2.3."
    bad_url = await client.post(
        "/api/admin/client-releases", json={"version": "2.0", "url": "ftp://x"}, headers=world.admin
    )
    assert bad_url.status_code == 422 and bad_url.json()["fields"] == {"url": "Enlace inválido."}
