"""Bounded fan-out (issue 33, item 5): a room holds at most VPN_ROOM_MAX_MEMBERS peers; one more is refused with
a Spanish 409 whether a guest joins or the owner adds a peer, concurrent joins at the last place end with one
winner, and a place freed is a place again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.services import Services
from tests.api.factories import make_peer, make_server
from tests.api.test_rooms import ROOMS, create, join, node_answers, person

FULL = "La sala está llena: admite como máximo 3 peers. Pida al administrador que quite alguno."


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"room_max_members": 3}


@pytest.fixture
async def world(services: Services, client: AsyncTestClient[Any]) -> dict[str, Any]:
    """Ana owns the room; Beto and Caro have peers to bring; two servers, as rooms span servers."""
    s1 = await make_server(services, "Miami 1", "10.8.0.0/24")
    s2 = await make_server(services, "Madrid 1", "10.9.0.0/24")
    ana, beto, caro = [await person(services, client, name) for name in ("ana", "beto", "caro")]
    peers = {
        "ana1": await make_peer(services, ana.user, "ana1", s1),
        "ana2": await make_peer(services, ana.user, "ana2", s1),
        "beto1": await make_peer(services, beto.user, "beto1", s2),
        "beto2": await make_peer(services, beto.user, "beto2", s2),
        "caro1": await make_peer(services, caro.user, "caro1", s1),
    }
    await node_answers(services)
    return {"ana": ana, "beto": beto, "caro": caro, "peers": peers}


async def test_a_room_at_its_limit_refuses_a_guest_and_the_owner_alike(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    assert (await join(client, beto, "LAN", room["password"], peers["beto2"])).status_code == 200
    # Full: a stranger with the password and the owner adding a peer of their own get the same answer.
    for who, peer in ((caro, peers["caro1"]), (ana, peers["ana2"])):
        answer = await join(client, who, "LAN", room["password"], peer)
        assert answer.status_code == 409
        assert answer.json() == {"message": FULL, "code": "party_full"}
    lists = (await client.get(ROOMS, headers=ana.headers)).json()
    assert len(lists["owned_partys"][0]["peers"]) == 3
    # The owner takes a peer out: the place is free again.
    await node_answers(services)
    removed = await client.patch(
        f"{ROOMS}/{room['id']}", json={"operation": "remove_peer", "peer": peers["beto2"].id}, headers=ana.headers
    )
    assert removed.status_code == 200, removed.text
    await node_answers(services)
    assert (await join(client, caro, "LAN", room["password"], peers["caro1"])).status_code == 200


async def test_two_joins_for_the_last_place_end_with_one_winner(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    answers = await asyncio.gather(
        join(client, beto, "LAN", room["password"], peers["beto2"]),
        join(client, caro, "LAN", room["password"], peers["caro1"]),
    )
    assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    assert [a.json()["code"] for a in answers if a.status_code == 409] == ["party_full"]
    lists = (await client.get(ROOMS, headers=ana.headers)).json()
    assert len(lists["owned_partys"][0]["peers"]) == 3
