"""Rooms on real WireGuard across two servers: membership is what the wire lets through.

Topology (namespaces made here): server 1 and server 2 (agent + wireguard-go + nftables each) reach the internet
namespace (10.250.0.1 on its loopback) through veths; the internet namespace also routes between the servers, which
is the path of their backbone. Three customer devices, each its own namespace running `wg-quick` with the file the
API hands out: A on server 1 (Ana's), B on server 2 (Beto's), C on server 1 (Caro's, in no room).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from agent_process import AgentProcess
from control_plane import ADMIN, Api, ControlPlane
from netns import Namespace, unique_name, veth, wait_for, wg_quick_up
from test_end_to_end import INTERNET, Browser

PASSWORD = "clave-segura-de-prueba-1"


@dataclass
class Node:
    name: str  # "1" or "2"
    ns: Namespace
    endpoint: str  # the address customers' devices dial
    uplink: str  # the address other servers dial for the backbone
    subnet: str
    wg_interface: str = field(default_factory=lambda: unique_name("wge"))
    backbone_interface: str = field(default_factory=lambda: unique_name("wgb"))
    agent: AgentProcess | None = None
    server_id: str = ""
    credential: str = ""


@dataclass
class Device:
    ns: Namespace
    server: str  # "1" or "2"
    address: str = ""
    peer_id: str = ""


@dataclass
class RoomWorld:
    nodes: dict[str, Node]
    devices: dict[str, Device]
    workdir: Path


@pytest.fixture
def room_world(tmp_path: Path) -> Iterator[RoomWorld]:
    made: list[Namespace] = []
    try:
        internet = Namespace("inet")
        made.append(internet)
        internet.run(["ip", "addr", "add", f"{INTERNET}/32", "dev", "lo"])
        internet.run(["sysctl", "-q", "net.ipv4.ip_forward=1"])  # the servers' backbone crosses it
        nodes: dict[str, Node] = {}
        for i in (1, 2):
            ns = Namespace(f"srv{i}")
            made.append(ns)
            veth(ns, "egr0", f"10.20{i}.0.1/24", internet, f"up{i}", f"10.20{i}.0.2/24")
            ns.run(["ip", "route", "add", "default", "via", f"10.20{i}.0.2"])
            node = Node(str(i), ns, f"10.21{i}.0.1", f"10.20{i}.0.1", f"10.{7 + i}.0.0/24")
            ns.wireguard_interfaces.update({node.wg_interface, node.backbone_interface})
            nodes[str(i)] = node
        devices: dict[str, Device] = {}
        for name, server, lan in (("A", "1", "10.211.0"), ("B", "2", "10.212.0"), ("C", "1", "10.213.0")):
            ns = Namespace(f"cli{name.lower()}")
            made.append(ns)
            node_ns = nodes[server].ns
            if name == "C":  # a second link into server 1; its endpoint address is on the first one
                veth(node_ns, "cl1", f"{lan}.1/24", ns, "up0", f"{lan}.2/24")
                ns.run(["ip", "route", "add", "10.211.0.0/24", "via", f"{lan}.1"])
            else:
                veth(node_ns, "cl0", f"{lan}.1/24", ns, "up0", f"{lan}.2/24")
            devices[name] = Device(ns, server)
        yield RoomWorld(nodes, devices, tmp_path)
    finally:
        for ns in reversed(made):
            ns.delete()


def reaches(src: Device, dst: Device) -> bool:
    return src.ns.ping(dst.address, 2, 1)


def assert_isolated(src: Device, dst: Device) -> None:
    assert not src.ns.ping(dst.address, 3, 1), f"{src.ns.name} reaches {dst.address} outside a shared room"


def test_room_members_reach_each_other_across_servers_and_nobody_else(room_world: RoomWorld, tmp_path: Path) -> None:
    world = room_world
    cp = ControlPlane(tmp_path, operation_timeout=30)
    cp.start()
    browser = None
    try:
        admin = Api(cp.url, *ADMIN, admin=True)
        customers: dict[str, Api] = {}
        for username, alias in (("ana", "Ana"), ("beto", "Beto"), ("caro", "Caro")):
            answer = admin.http.put("/api/client/register", json={"username": username, "password": PASSWORD})
            assert answer.status_code == 201, answer.text
            customers[username] = Api(cp.url, username, PASSWORD)
            assert customers[username].patch("/api/client/settings", json={"alias": alias}).status_code == 200

        for node in world.nodes.values():
            created = admin.post(
                "/api/admin/servers",
                json={
                    "name": f"Servidor {node.name}",
                    "address": node.endpoint,
                    "tunnel_subnet": node.subnet,
                    "allow_partys": True,
                    # Other nodes dial its uplink address; customers dial `address`.
                    "backbone_endpoint": node.uplink,
                },
            )
            assert created.status_code == 201, created.text
            node.server_id, node.credential = created.json()["server"]["id"], created.json()["credential"]
            start_agent(world, cp, node)

        def servers() -> list[dict[str, Any]]:
            return list(admin.get("/api/admin/servers").json())

        wait_for(lambda: all(s["public_key"] and s["online"] for s in servers()), 30, 0.3, "agents online")

        owners = {"A": "ana", "B": "beto", "C": "caro"}
        for name, device in world.devices.items():
            node = world.nodes[device.server]
            created = admin.post(
                "/api/admin/peers", json={"username": owners[name], "name": f"disp{name}", "server": node.server_id}
            )
            assert created.status_code == 201, created.text
            device.peer_id, device.address = created.json()["id"], created.json()["address"]
        wait_for(lambda: all(s["in_sync"] for s in servers()), 20, 0.3, "peers applied")
        for name, device in world.devices.items():
            text = customers[owners[name]].get(f"/api/client/accounts/peers/{device.peer_id}").text
            wg_quick_up(device.ns, text, unique_name("wgc"), world.workdir)
        a, b, c = (world.devices[n] for n in "ABC")

        def internet_for_all() -> None:
            for device in (a, b, c):
                wait_for(lambda d=device: d.ns.ping(INTERNET, 1, 1), 15, 0.2, f"internet from {device.ns.name}")

        # No room yet: every device reaches the internet and no other device.
        internet_for_all()
        assert_isolated(a, c)
        assert_isolated(c, a)
        assert_isolated(a, b)

        # Ana opens a room with A; Beto joins with B (on the other server): they reach each other over the backbone.
        ana, beto = customers["ana"], customers["beto"]
        browser = Browser(cp, ana.access)
        browser.wait("auth")
        created = ana.post("/api/client/network/partys", json={"name": "LAN", "peer": a.peer_id})
        assert created.status_code == 201, created.text
        room = created.json()["data"]
        joined = beto.patch(
            "/api/client/network/partys",
            json={"operation": "join", "name": "LAN", "password": room["password"], "peer": b.peer_id},
        )
        assert joined.status_code == 200, joined.text
        browser.wait("updated_owner_party", lambda d: d.get("id") == room["id"] and len(d["peers"]) == 2)
        done = browser.wait(
            "updated_owner_party", lambda d: d.get("id") == room["id"] and len(d["peers"]) == 2 and not d["processing"]
        )
        assert {p["private_ip"] for p in done["data"]["peers"]} == {a.address, b.address}
        wait_for(lambda: reaches(a, b), 15, 0.2, "A reaching B through the room")
        assert reaches(b, a)
        # C, in no room, reaches neither (not A on its own server, not B across the backbone).
        assert_isolated(c, a)
        assert_isolated(c, b)
        assert_isolated(a, c)
        internet_for_all()

        # A server that restarts its agent (and lost its firewall) gets the room back in its full state.
        node_2 = world.nodes["2"]
        assert node_2.agent is not None
        node_2.agent.stop()
        node_2.ns.run(["nft", "delete", "table", "inet", "vpn_node"])
        node_2.agent.start()
        wait_for(lambda: node_2.ns.run(["nft", "list", "tables"]).stdout.count("vpn_node"), 20, 0.2, "table back")
        wait_for(lambda: reaches(a, b), 15, 0.2, "A reaching B after server 2 reconnected")
        assert_isolated(c, b)

        # A leaves: A and B are cut off, though B is still in the room.
        before = len(browser.messages)
        left = ana.patch(f"/api/client/network/partys/{room['id']}", json={"operation": "leave", "peer": a.peer_id})
        assert left.status_code == 200, left.text
        wait_for(
            lambda: any(m["type"] == "stop_party_operation" for m in browser.messages[before:]),
            20,
            0.1,
            "the nodes applying the leave",
        )
        assert_isolated(a, b)
        assert_isolated(b, a)
        internet_for_all()

        # A joins again, then the room is deleted: everybody is isolated, the internet stays.
        rejoin = ana.patch(
            "/api/client/network/partys",
            json={"operation": "join", "name": "LAN", "password": room["password"], "peer": a.peer_id},
        )
        assert rejoin.status_code == 200, rejoin.text
        wait_for(lambda: reaches(a, b), 15, 0.2, "A reaching B again")
        assert ana.delete(f"/api/client/network/partys/{room['id']}").status_code == 200
        browser.wait("deleted_owner_party", lambda d: d.get("id") == room["id"])
        wait_for(lambda: all(s["in_sync"] for s in servers()), 20, 0.3, "servers dropping the room")
        for src, dst in ((a, b), (b, a), (a, c), (c, a), (c, b)):
            assert_isolated(src, dst)
        internet_for_all()
    finally:
        if browser is not None:
            browser.close()
        for node in world.nodes.values():
            if node.agent is not None:
                node.agent.ensure_stopped()
        cp.stop()


def start_agent(world: RoomWorld, cp: ControlPlane, node: Node) -> None:
    node.agent = AgentProcess(
        node.ns,
        world.workdir / f"agent-{node.name}",
        control_url=cp.grpc_target,
        node_id=node.server_id,
        credential=node.credential,
        interface=node.wg_interface,
        backbone_interface=node.backbone_interface,
        egress_interface="egr0",
    )
    node.agent.start()
