"""The customer's peer view tells its running operation and its last outcome (docs/api.md, "Peer operations"): the
202 answer, the pushes and a later poll of the list say the same Spanish words, name servers by name and location
(never by address), and a peer whose server went offline says what that means and what to do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import update

from controlplane.db import transaction
from controlplane.domain.servers.models import Server
from controlplane.services import Services
from tests.api.two_nodes import World, fail_operation, two_nodes
from tests.clock import ManualClock, manual_clock

PEERS = "/api/client/accounts/peers"
MOVING = "Moviendo a Madrid 1 (Madrid)… su configuración actual sigue funcionando."


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"operation_timeout_seconds": 60.0}


@pytest.fixture
def clock() -> Iterator[ManualClock]:
    with manual_clock() as clock:
        yield clock


@pytest.fixture
async def world(services: Services, client: AsyncTestClient[Any], clock: ManualClock) -> World:
    world = await two_nodes(services, client)
    async with transaction(services.sessionmaker) as db:
        await db.execute(update(Server).where(Server.id == world.madrid).values(ubication="Madrid"))
    return world


async def _listed(world: World) -> dict[str, Any]:
    [peer] = (await world.client.get(PEERS, headers=world.headers)).json()
    return peer


async def _move(world: World) -> dict[str, Any]:
    answer = await world.client.patch(
        f"{PEERS}/{world.peer.id}", json={"operation": "change_server", "server": world.madrid}, headers=world.headers
    )
    assert answer.status_code == 202, answer.text
    return answer.json()


async def test_a_pending_move_reads_the_same_in_the_answer_and_in_a_later_poll(world: World) -> None:
    accepted = await _move(world)
    assert accepted["message"] == MOVING
    running = accepted["data"]["operation"]
    assert running["kind"] == "change_server" and running["message"] == MOVING
    # The target by name and location; its address is nowhere in what the customer reads.
    assert running["server"] == {"id": world.madrid, "name": "Madrid 1", "ubication": "Madrid"}
    assert "madrid1.vpn.test" not in str(running)
    # A reload a minute later (the push lost, the tab reopened) tells the same story, since the same moment.
    polled = await _listed(world)
    assert polled["processing"] is True and polled["operation"] == running
    assert polled["last_outcome"]["kind"] == "create"  # the last one that ended: its creation


async def test_a_finished_move_is_told_by_push_and_by_poll_in_the_same_words(world: World) -> None:
    await _move(world)
    await world.answer(await world.deliver(world.madrid))
    [push] = await world.pushes()
    told = "El peer movil ya está en Madrid 1 (Madrid). Descargue de nuevo la configuración."
    assert push["type"] == "updated_peer" and push["message"] == told
    outcome = push["data"]["last_outcome"]
    assert outcome["kind"] == "change_server" and outcome["ok"] is True and outcome["message"] == told
    assert push["data"]["operation"] is None
    polled = await _listed(world)
    assert polled["operation"] is None and polled["last_outcome"] == outcome


async def test_a_failed_regeneration_is_remembered_as_the_push_told_it(world: World, clock: ManualClock) -> None:
    answer = await world.client.patch(
        f"{PEERS}/{world.peer.id}", json={"operation": "regenerate"}, headers=world.headers
    )
    assert answer.status_code == 202, answer.text
    assert answer.json()["message"] == (
        "Generando claves nuevas para movil en Miami 1 (Miami)… su configuración actual sigue funcionando hasta"
        " que terminen."
    )
    await fail_operation(world, clock, "error", world.miami)
    error, updated = await world.pushes()
    assert error["type"] == "error" and "regenerar el peer movil" in error["message"]
    outcome = updated["data"]["last_outcome"]
    assert outcome["kind"] == "regenerate" and outcome["ok"] is False and outcome["message"] == error["message"]
    assert (await _listed(world))["last_outcome"] == outcome


async def test_a_peer_on_an_offline_server_says_what_it_means_by_the_servers_name(world: World) -> None:
    assert (await _listed(world))["server_notice"] is None
    await world.stop_agent(world.miami)
    world.services.peers._lists.clear()  # the cached list lives up to 10 s: a poll after that
    peer = await _listed(world)
    assert peer["server"]["online"] is False
    assert peer["server_notice"] == (
        "El servidor Miami 1 (Miami) no responde: este peer no tiene conexión hasta que vuelva. Si no puede esperar,"
        " muévalo a otro servidor en línea y descargue de nuevo la configuración."
    )
    # The way out: the servers for this peer recommend the one online.
    options = (await world.client.get(f"/api/client/network/{world.peer.id}", headers=world.headers)).json()
    assert [(o["name"], o["recommended"]) for o in options] == [("Madrid 1", True)]
