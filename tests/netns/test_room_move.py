"""The room's best server on real agents (docs/rooms.md): the owner moves all of their peers in the room to the
recommended server in one request while another node is down for real, and hears one partial result.

World: test_rooms.py's two servers and devices. Ana owns the room with A (a device on server 1) and A2 (a second peer
on server 1, no device); Beto is in it with B on server 2. A2 has a key rotation waiting on server 1 when server 1's
agent is killed: its move cannot start (one operation at a time per peer), A's can, and does, make before break.
"""

from __future__ import annotations

import signal
from pathlib import Path

from control_plane import ADMIN, Api, ControlPlane
from netns import unique_name, veth, wait_for, wg_quick_down, wg_quick_up
from test_end_to_end import Browser
from test_rooms import RoomWorld, bring_up, join, open_room, reaches, room_world  # noqa: F401 - the fixture

PEERS = "/api/client/accounts/peers"


def test_the_owner_moves_the_group_while_a_node_is_down_and_hears_one_partial_result(
    room_world: RoomWorld,  # noqa: F811 - the imported fixture
    tmp_path: Path,
) -> None:
    world = room_world
    cp = ControlPlane(tmp_path, operation_timeout=120)  # A2's rotation must stay pending through the move
    cp.start()
    browser = None
    try:
        customers, servers = bring_up(world, cp)
        ana, beto = customers["ana"], customers["beto"]
        a, b = world.devices["A"], world.devices["B"]
        node_1, node_2 = world.nodes["1"], world.nodes["2"]
        admin = Api(cp.url, *ADMIN, admin=True)
        created = admin.post("/api/admin/peers", json={"username": "ana", "name": "dispA2", "server": node_1.server_id})
        assert created.status_code == 201, created.text
        a2 = created.json()["id"]
        wait_for(lambda: all(s["in_sync"] for s in servers()), 20, 0.3, "A2 applied")
        # A's device gets a second link, into server 2, for after its move (as a phone changing network would).
        veth(node_2.ns, "cl1", "10.216.0.1/24", a.ns, "up1", "10.216.0.2/24")
        a.ns.run(["ip", "route", "add", "10.212.0.0/24", "via", "10.216.0.1"])

        room = open_room(ana, a)
        join(room, beto, b)
        added = ana.patch(
            "/api/client/network/partys",
            json={"operation": "join", "name": "LAN", "password": room["password"], "peer": a2},
        )
        assert added.status_code == 200, added.text
        wait_for(lambda: all(s["in_sync"] for s in servers()), 20, 0.3, "the room applied")
        wait_for(lambda: reaches(a, b), 15, 0.2, "A reaching B across the backbone")
        browser = Browser(cp, ana.access)
        browser.wait("auth")

        # Server 1's agent freezes with A2's key rotation queued, then dies for real: A2 stays busy.
        assert node_1.agent is not None and node_1.agent.proc is not None
        node_1.agent.proc.send_signal(signal.SIGSTOP)
        rotating = ana.patch(f"{PEERS}/{a2}", json={"operation": "regenerate"})
        assert rotating.status_code == 202, rotating.text
        node_1.agent.kill()
        wait_for(lambda: not next(s for s in servers() if s["id"] == node_1.server_id)["online"], 15, 0.2, "1 down")

        # The page: everybody's server, server 1 shown down and never recommended; server 2 recommended.
        shown = ana.get(f"/api/client/network/partys/{room['id']}/servers").json()
        by_name = {s["name"]: (s["members"], s["online"], s["recommended"]) for s in shown["servers"]}
        assert by_name == {"Servidor 1": (2, False, False), "Servidor 2": (1, True, True)}
        assert sorted(shown["to_move"]) == sorted([a.peer_id, a2])

        # One request: A's move starts, A2's is refused at once with its reason; nothing else is touched.
        moved = ana.post(f"/api/client/network/partys/{room['id']}/move", json={"server": node_2.server_id})
        assert moved.status_code == 202, moved.text
        assert moved.json()["moving"] == [a.peer_id]
        assert [(r["name"], r["message"]) for r in moved.json()["refused"]] == [
            ("dispA2", "Ya hay una operación en curso para este peer.")
        ]
        result = browser.wait("info", lambda d: d.get("party_id") == room["id"], within=60)
        assert result["message"] == (
            "1 de 2 peers pasaron a Servidor 2. Descargue de nuevo la configuración de «dispA». «dispA2» no se movió:"
            " Ya hay una operación en curso para este peer."
        )
        assert len([m for m in browser.messages if (m.get("data") or {}).get("party_id") == room["id"]]) == 1
        peers = {p["id"]: p for p in ana.get(PEERS).json()}
        assert peers[a.peer_id]["server"]["id"] == node_2.server_id
        assert peers[a2]["server"]["id"] == node_1.server_id

        # A's device takes its new file: it reaches B on their shared server, with server 1 still down.
        assert a.config is not None
        wg_quick_down(a.ns, a.config)
        a.address = peers[a.peer_id]["address"]
        a.config = wg_quick_up(a.ns, ana.get(f"{PEERS}/{a.peer_id}").text, unique_name("wgc"), world.workdir)
        wait_for(lambda: reaches(a, b), 20, 0.2, "A reaching B on server 2")
        assert reaches(b, a)
    finally:
        if browser is not None:
            browser.close()
        for node in world.nodes.values():
            if node.agent is not None:
                node.agent.ensure_stopped()
        cp.stop()
