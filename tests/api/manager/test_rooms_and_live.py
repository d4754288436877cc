"""Rooms seen from the manager, a server that stops allowing rooms, and the staff socket's live events."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient, TestClient
from sqlalchemy import select

from controlplane.app import create_app
from controlplane.domain.accounts.models import User
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.models import RoomMember
from controlplane.services import Services
from tests.api.manager.world import World, build_world


async def _room(services: Services, world: World) -> str:
    async with services.sessionmaker.begin() as db:
        user = await db.get(User, world.ids["user"])
        assert user is not None
        user.alias, user.alias_key = "anita", "anita"
        room = await services.rooms.create(db, user.id, "amigos", world.ids["peer"])
        (await db.get(Peer, world.ids["peer"])).pending_operation_id = None  # type: ignore[union-attr]
        return room.id


async def test_user_detail_shows_rooms_and_peer_room(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    room_id = await _room(services, world)
    detail = (await client.get(f"/api/admin/users/{world.ids['user']}", headers=world.support)).json()
    assert detail["rooms"] == [
        {
            "id": room_id,
            "name": "amigos",
            "owner": "ana",
            "relation": "owner",
            "members": 1,
            "created": detail["rooms"][0]["created"],
        }
    ]
    assert detail["peers"][0]["party"] == {"id": room_id, "name": "amigos"}
    assert "password" not in str(detail)


async def test_a_server_that_stops_allowing_rooms_takes_its_peers_out(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    await _room(services, world)
    answer = await client.patch(
        f"/api/admin/servers/{world.ids['server']}", json={"allow_partys": False}, headers=world.admin
    )
    assert answer.status_code == 200 and answer.json()["allow_partys"] is False
    async with services.sessionmaker() as db:
        assert (await db.execute(select(RoomMember))).scalars().all() == []
    peers = (await client.get("/api/admin/peers", headers=world.support)).json()["items"]
    assert peers[0]["party"] is None


async def test_staff_sockets_hear_audit_entries_and_customers_do_not(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    staff_token = world.support["Authorization"].removeprefix("Bearer ")
    customer_token = world.customer["Authorization"].removeprefix("Bearer ")
    with TestClient(app=create_app(services=services)) as sync_client:
        with (
            sync_client.websocket_connect(f"/ws?token={staff_token}") as staff,
            sync_client.websocket_connect(f"/ws?token={customer_token}") as customer,
        ):
            assert staff.receive_json()["type"] == "auth" and customer.receive_json()["type"] == "auth"
            # Another customer is blocked (blocking ana herself would close her socket: test_users.py).
            answer = sync_client.patch(
                f"/api/admin/users/{world.ids['unverified']}", json={"blocked": True}, headers=world.admin
            )
            assert answer.status_code == 200
            event = staff.receive_json()
            assert event["type"] == "audit"
            assert event["data"]["action"] == "user.block" and event["data"]["actor_username"] == "jefa"
            # The customer's socket hears nothing of it: the next thing it gets is its own pong.
            customer.send_text('{"type":"ping"}')
            assert customer.receive_json() == {"type": "pong"}
