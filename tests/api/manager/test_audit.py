"""The audit log: searchable by text, action, actor and time, newest first, in pages; switches are audited too."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.services import Services
from tests.api.manager.world import build_world


async def test_audit_search_and_pages(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    await client.patch("/api/admin/switches", json={"maintenance": True}, headers=world.admin)
    await client.patch("/api/admin/switches", json={"maintenance": False, "allow_email": False}, headers=world.admin)
    await client.patch(f"/api/admin/users/{world.ids['user']}", json={"blocked": True}, headers=world.support)

    everything = (await client.get("/api/admin/audit", headers=world.support)).json()
    assert everything["total"] == 3
    newest = everything["items"][0]
    assert newest["action"] == "user.block" and newest["actor_username"] == "ayuda"
    assert newest["ip_address"] == "testclient" and newest["target_id"] == world.ids["user"]

    switches = (await client.get("/api/admin/audit", params={"action": "switches.update"}, headers=world.admin)).json()
    assert [e["summary"] for e in switches["items"]] == [
        "Modo mantenimiento → no, Email → no",
        "Modo mantenimiento → sí",
    ]  # the switches by the names the manager's page gives them, not their API names
    by_actor = (await client.get("/api/admin/audit", params={"actor": "JEFA"}, headers=world.admin)).json()
    assert by_actor["total"] == 2
    by_text = (await client.get("/api/admin/audit", params={"q": "ana"}, headers=world.admin)).json()
    assert [e["action"] for e in by_text["items"]] == ["user.block"]
    paged = (await client.get("/api/admin/audit", params={"page_size": 1, "page": 3}, headers=world.admin)).json()
    assert paged["total"] == 3 and [e["summary"] for e in paged["items"]] == ["Modo mantenimiento → sí"]
    future = await client.get("/api/admin/audit", params={"since": "2999-01-01T00:00:00Z"}, headers=world.admin)
    assert future.json()["items"] == []
    bad = await client.get("/api/admin/audit", params={"since": "ayer"}, headers=world.admin)
    assert bad.status_code == 422


async def test_switch_patch_needs_something_and_refuses_unknown(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    empty = await client.patch("/api/admin/switches", json={}, headers=world.admin)
    assert empty.status_code == 422 and empty.json()["message"] == "Indique al menos un interruptor."
    unknown = await client.patch("/api/admin/switches", json={"turbo": True}, headers=world.admin)
    assert unknown.status_code == 422 and unknown.json()["message"] == "El campo 'turbo' no está permitido."
    assert (await client.get("/api/admin/audit", headers=world.admin)).json()["total"] == 0


async def test_overview_counts_and_money_only_for_admins(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    support = (await client.get("/api/admin/overview", headers=world.support)).json()
    assert (support["users"], support["peers"], support["peers_active"], support["servers"]) == (2, 1, 1, 2)
    assert support["operations_pending"] == 1  # the peer's creation, still waiting for its node
    assert support["revenue"] is None
    admin = (await client.get("/api/admin/overview", headers=world.admin)).json()
    assert admin["revenue"] == []
    [operation] = admin["recent_operations"]
    assert operation["kind"] == "create" and operation["server_name"] == "Miami 1" and operation["status"] == "pending"
