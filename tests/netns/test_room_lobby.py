"""The rooms' lobby on real WireGuard across two servers: real LAN announcements from the devices' namespaces
cross the room relay, each server's agent recognizes its members' (NFLOG copies from its own chain in front of
the relay) and reports summaries, and the control plane shows each room's games to that room's members and to
nobody else.

Topology: test_rooms.py's (server 1: A of Ana's, C of Caro's; server 2: B of Beto's). Ana's room "LAN" has A and B
(across the backbone); Caro's room "Otra" has C, on A's server.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import test_rooms
from control_plane import ControlPlane
from discovery import send
from netns import wait_for
from test_end_to_end import INTERNET
from test_rooms import RoomWorld, bring_up, join, open_room

room_world = test_rooms.room_world  # the fixture: two servers, A and C on server 1, B on server 2

MINECRAFT_GROUP, MINECRAFT_PORT = "224.0.2.60", 4445
SSDP_GROUP, SSDP_PORT = "239.255.255.250", 1900
# `send` appends the datagram's index: after the [AD] block and after the SSDP header's end, where no parser reads.
ANA_WORLD = "[MOTD]Mundo de Ana[/MOTD][AD]51234[/AD]"
CARO_WORLD = "[MOTD]Mundo de Caro[/MOTD][AD]40000[/AD]"
BETO_SSDP = (
    "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nLOCATION: http://10.9.0.2:8200/rootDesc.xml\r\n"
    "NT: urn:schemas-upnp-org:device:MediaServer:1\r\nNTS: ssdp:alive\r\nSERVER: Servidor de Beto\r\n\r\n"
)


def test_each_room_shows_its_own_members_games_heard_on_the_wire(room_world: RoomWorld, tmp_path: Path) -> None:
    world = room_world
    cp = ControlPlane(tmp_path, operation_timeout=30)
    cp.start()
    try:
        customers, servers = bring_up(world, cp)
        a, b, c = (world.devices[n] for n in "ABC")
        ana, beto, caro = customers["ana"], customers["beto"], customers["caro"]
        lan = open_room(ana, a)
        join(lan, beto, b)
        other = open_room_named(caro, c, "Otra")
        wait_for(lambda: all(s["in_sync"] for s in servers()), 20, 0.2, "servers applying the rooms")
        for device in (a, b, c):  # every tunnel up (its first handshake done) before anybody announces
            wait_for(lambda d=device: d.ns.ping(INTERNET, 1, 1), 15, 0.2, f"internet from {device.ns.name}")

        def view(who: Any, room: dict[str, Any]) -> dict[str, Any]:
            answer = who.get(f"/api/client/network/partys/{room['id']}")
            assert answer.status_code == 200, answer.text
            return dict(answer.json())

        def lobby(who: Any, room: dict[str, Any]) -> list[tuple[str, str, str, str, int]]:
            return sorted((g["game"], g["name"], g["user"], g["address"], g["port"]) for g in view(who, room)["lobby"])

        def hearing(who: Any, room: dict[str, Any]) -> dict[str, tuple[int, int | None]]:
            return {p["private_ip"]: (p["heard_packets"], p["heard_seconds_ago"]) for p in view(who, room)["peers"]}

        # Before anybody announces: an empty lobby, and every member "none since it joined".
        assert lobby(beto, lan) == []
        assert hearing(beto, lan) == {a.address: (0, None), b.address: (0, None)}

        # Ana opens a Minecraft world to LAN on A (server 1); Caro one on C (server 1 too, in her own room). Each
        # announces every 1.5 s, as the game does.
        def announce() -> None:
            send(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, ANA_WORLD)
            send(c.ns, MINECRAFT_GROUP, MINECRAFT_PORT, CARO_WORLD)

        def beto_sees_anas_world() -> bool:
            announce()
            return bool(lobby(beto, lan))

        wait_for(lambda: (announce(), lobby(caro, other))[1], 20, 1.5, "Caro's world in her own room")
        wait_for(beto_sees_anas_world, 30, 1.5, "Ana's world in the lobby Beto sees (across servers)")
        assert lobby(beto, lan) == [("minecraft", "Mundo de Ana", "Ana", a.address, 51234)]
        assert lobby(ana, lan) == lobby(beto, lan)
        wait_for(lambda: (announce(), lobby(caro, other))[1], 20, 1.5, "Caro's world in her own room")
        assert lobby(caro, other) == [("minecraft", "Mundo de Caro", "Caro", c.address, 40000)]
        # Nobody sees the other room's game, and a stranger cannot read the room at all.
        assert all(entry[1] != "Mundo de Caro" for entry in lobby(ana, lan))
        assert caro.get(f"/api/client/network/partys/{lan['id']}").status_code == 404
        # Who can hear whom: A's announcements reached its server; B has sent nothing.
        heard = hearing(beto, lan)
        assert heard[a.address][0] >= 1 and heard[a.address][1] is not None
        assert heard[b.address] == (0, None), "B sent nothing: 'ninguno desde que entró'"

        # A hostile or cut announcement on Minecraft's port makes no entry.
        send(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, "[MOTD]roto[/MOT", 5)
        send(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, "[MOTD]x[/MOTD][AD]99999[/AD]", 5)

        # Beto shares a media server on B (SSDP NOTIFY, server 2): it shows in the same lobby for Ana, across
        # servers, and B is now heard.
        def ana_sees_betos_server() -> bool:
            send(b.ns, SSDP_GROUP, SSDP_PORT, BETO_SSDP)
            send(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, ANA_WORLD)
            return any(entry[0] == "ssdp" for entry in lobby(ana, lan))

        wait_for(ana_sees_betos_server, 30, 1.5, "Beto's SSDP announcement in Ana's lobby")
        assert lobby(ana, lan) == [
            ("minecraft", "Mundo de Ana", "Ana", a.address, 51234),
            ("ssdp", "Servidor de Beto", "Beto", b.address, 8200),
        ]
        assert hearing(ana, lan)[b.address][0] >= 1
        assert all(entry[0] == "minecraft" and entry[1] == "Mundo de Caro" for entry in lobby(caro, other))

        # Everyone stops announcing: 30 s after the last announcement the lobby is empty again (the last one left
        # a moment after the last check, and its report up to 2 s later).
        time.sleep(34)
        assert lobby(ana, lan) == [] and lobby(caro, other) == []
    finally:
        for node in world.nodes.values():
            if node.agent is not None:
                node.agent.ensure_stopped()
        cp.stop()


def open_room_named(owner: Any, device: Any, name: str) -> dict[str, Any]:
    created = owner.post("/api/client/network/partys", json={"name": name, "peer": device.peer_id})
    assert created.status_code == 201, created.text
    return dict(created.json()["data"])
