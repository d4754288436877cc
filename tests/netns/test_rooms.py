"""Rooms on real WireGuard across two servers: membership is what the wire lets through.

Topology (namespaces made here): server 1 and server 2 (agent + wireguard-go + nftables each) reach the internet
namespace (10.250.0.1 on its loopback) through veths; the internet namespace also routes between the servers, which
is the path of their backbone. Three customer devices, each its own namespace running `wg-quick` with the file the
API hands out: A on server 1 (Ana's), B on server 2 (Beto's), C on server 1 (Caro's, in no room). The discovery
test adds D on server 2 (Caro's second device, never in a room) and a second link from C to server 2, where C's
peer moves.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from agent_process import AgentProcess
from control_plane import ADMIN, Api, ControlPlane, free_port
from discovery import Listener, send, settle
from netns import Namespace, unique_name, veth, wait_for, wg_quick_down, wg_quick_up
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
    config: Path | None = None  # the wg-quick file up in `ns`


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


@pytest.fixture
def discovery_world(room_world: RoomWorld) -> Iterator[RoomWorld]:
    """room_world plus D, a device on server 2 that is never in a room, and a second link from C's namespace to
    server 2 (C's peer moves there). Only the discovery test pays for them."""
    world = room_world
    d = Namespace("clid")
    try:
        node_2, c = world.nodes["2"].ns, world.devices["C"].ns
        veth(node_2, "cl1", "10.214.0.1/24", d, "up0", "10.214.0.2/24")
        d.run(["ip", "route", "add", "10.212.0.0/24", "via", "10.214.0.1"])
        veth(node_2, "cl2", "10.215.0.1/24", c, "up1", "10.215.0.2/24")
        c.run(["ip", "route", "add", "10.212.0.0/24", "via", "10.215.0.1"])
        world.devices["D"] = Device(d, "2")
        yield world
    finally:
        d.delete()


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
        customers, servers = bring_up(world, cp)
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
        room = open_room(ana, a)
        join(room, beto, b)
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
        join(room, ana, a)
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


def open_room(owner: Api, device: Device) -> dict[str, Any]:
    """The owner opens room "LAN" with `device`'s peer; returns the room (with its password)."""
    created = owner.post("/api/client/network/partys", json={"name": "LAN", "peer": device.peer_id})
    assert created.status_code == 201, created.text
    return dict(created.json()["data"])


def join(room: dict[str, Any], guest: Api, device: Device) -> None:
    joined = guest.patch(
        "/api/client/network/partys",
        json={"operation": "join", "name": room["name"], "password": room["password"], "peer": device.peer_id},
    )
    assert joined.status_code == 200, joined.text


def bring_up(
    world: RoomWorld, cp: ControlPlane, agent_env: dict[str, str] | None = None
) -> tuple[dict[str, Api], Callable[[], list[dict[str, Any]]]]:
    """Ana, Beto and Caro registered; both servers created with their agents online; one peer per device (A and C
    on server 1, B and D, if there, on server 2; D is Caro's too), its downloaded configuration up in the device's
    namespace (`Device.config`). Returns the customers' APIs by username and a reader of the admin's server list."""
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
        start_agent(world, cp, node, agent_env)

    def servers() -> list[dict[str, Any]]:
        return list(admin.get("/api/admin/servers").json())

    wait_for(lambda: all(s["public_key"] and s["online"] for s in servers()), 30, 0.3, "agents online")

    owners = {"A": "ana", "B": "beto", "C": "caro", "D": "caro"}
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
        device.config = wg_quick_up(device.ns, text, unique_name("wgc"), world.workdir)
    return customers, servers


def start_agent(world: RoomWorld, cp: ControlPlane, node: Node, extra_env: dict[str, str] | None = None) -> None:
    node.agent = AgentProcess(
        node.ns,
        world.workdir / f"agent-{node.name}",
        control_url=cp.grpc_target,
        node_id=node.server_id,
        credential=node.credential,
        interface=node.wg_interface,
        backbone_interface=node.backbone_interface,
        egress_interface="egr0",
        extra_env=extra_env,
    )
    node.agent.start()


def relay_metric(node: Node, port: int, name: str, result: str) -> float:
    """One sample of the agent's Prometheus metrics, read inside the server's namespace."""
    text = node.ns.run(
        [
            "python3",
            "-c",
            f"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:{port}/metrics').read().decode())",
        ]
    ).stdout
    wanted = f'{name}{{result="{result}"}} '
    return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith(wanted))


GAME_PORT = 27015  # Counter-Strike's LAN browser
MINECRAFT_GROUP, MINECRAFT_PORT = "224.0.2.60", 4445  # Minecraft Java's LAN world announcement
MDNS_GROUP, MDNS_PORT = "224.0.0.251", 5353
BROADCAST = "255.255.255.255"


def subnet_broadcast(node: Node) -> str:
    return str(ipaddress.ip_network(node.subnet).broadcast_address)


def test_discovery_reaches_room_members_across_servers_and_stops_when_they_leave(
    discovery_world: RoomWorld, tmp_path: Path
) -> None:
    """Real broadcast and multicast from the devices' namespaces: room members hear each other (same server and
    across the backbone), nobody else does, and that follows joins, leaves, removal, a move to the other server,
    a peer disabled by staff (what expiry does too) and enabled again, and a member deleted with its account (its
    address then handed to a stranger). D, on server 2, is never in the room and never hears a thing."""
    world = discovery_world
    cp = ControlPlane(tmp_path, operation_timeout=30)
    cp.start()
    metrics_port = free_port()
    listeners: list[Listener] = []
    try:
        # Tight limits so that a flood from a test's Python loop is far above them (defaults: docs/agent-protocol.md).
        env = {
            "VPN_NODE_METRICS_BIND": f"127.0.0.1:{metrics_port}",
            "VPN_NODE_RELAY_PACKETS_PER_SECOND": "20",
        }
        customers, servers = bring_up(world, cp, env)
        a, b, c, d = (world.devices[n] for n in "ABCD")
        ana, beto, caro = customers["ana"], customers["beto"], customers["caro"]
        admin = Api(cp.url, *ADMIN, admin=True)
        node_1, node_2 = world.nodes["1"], world.nodes["2"]

        def settled() -> None:
            wait_for(lambda: all(s["in_sync"] for s in servers()), 20, 0.2, "servers applying the room")

        room = open_room(ana, a)
        join(room, beto, b)
        settled()

        game = {name: Listener(world.devices[name].ns, GAME_PORT) for name in "ABCD"}
        minecraft = {name: Listener(world.devices[name].ns, MINECRAFT_PORT) for name in "ABCD"}
        mdns = {name: Listener(world.devices[name].ns, MDNS_PORT) for name in "ABCD"}
        listeners += [*game.values(), *minecraft.values(), *mdns.values()]

        def heard(listener: Listener, sender: Device, prefix: str, dest: str, port: int) -> bool:
            send(sender.ns, dest, port, prefix)  # resent until it arrives: the backbone may still be handshaking
            return bool(listener.from_(sender.address, prefix))

        def hears(name: str, sender: Device, prefix: str, dest: str = BROADCAST, what: str = "") -> None:
            port = {MINECRAFT_GROUP: MINECRAFT_PORT, MDNS_GROUP: MDNS_PORT}.get(dest, GAME_PORT)
            listener = {MINECRAFT_PORT: minecraft, MDNS_PORT: mdns, GAME_PORT: game}[port][name]
            message = f"{name} hearing {prefix!r} sent by {sender.ns.name} to {dest}:{port} {what}"
            wait_for(lambda: heard(listener, sender, prefix, dest, port), 20, 0.3, message)

        def strangers(name: str, own: str) -> list[tuple[str, str]]:
            """What `name`'s game, Minecraft and mDNS sockets got from anybody but `own` (its own broadcasts)."""
            return [p for ls in (game, minecraft, mdns) for p in list(ls[name].packets) if p[0] != own]

        # Counter-Strike's LAN browser and Minecraft's LAN world, from A on server 1 to B on server 2; also to the
        # tunnel subnet's broadcast address and mDNS, both ways.
        hears("B", a, "cs", what="across the backbone")
        hears("B", a, "[MOTD]LAN[/MOTD]", MINECRAFT_GROUP)
        hears("B", a, "mdns-a", MDNS_GROUP)
        hears("B", a, "subnet-a", subnet_broadcast(node_1))
        hears("A", b, "srv")
        hears("A", b, "subnet-b", subnet_broadcast(node_2))

        # The room page shows who is there: both members online (their servers' stats), each with its server.
        def members() -> dict[str, tuple[str, bool]]:
            view = ana.get("/api/client/network/partys").json()["owned_partys"][0]
            return {p["private_ip"]: (p["server"], p["online"]) for p in view["peers"]}

        wait_for(lambda: all(online for _, online in members().values()), 20, 0.3, "members shown online")
        assert members() == {a.address: ("Servidor 1", True), b.address: ("Servidor 2", True)}
        # C (on A's server) and D (on B's), in no room, broadcast and multicast: neither member hears them.
        for outsider, node in ((c, node_1), (d, node_2)):
            send(outsider.ns, BROADCAST, GAME_PORT, "fuera", 2)
            send(outsider.ns, MINECRAFT_GROUP, MINECRAFT_PORT, "fuera", 2)
            send(outsider.ns, subnet_broadcast(node), GAME_PORT, "fuera", 2)
        # Caro's C (on A's server) and D (on B's), in no room, hear nothing from anybody.
        settle()
        assert strangers("C", c.address) == [] and strangers("D", d.address) == []
        assert [p for name in "AB" for ls in (game, minecraft) for p in ls[name].with_prefix("fuera")] == []

        # Caro joins with C: now a member on the same server as A hears A too: broadcast, Minecraft and mDNS.
        join(room, caro, c)
        settled()
        hears("C", a, "hola", what="on the same server")
        hears("C", a, "[MOTD]hola[/MOTD]", MINECRAFT_GROUP, "on the same server")
        hears("C", a, "mdns-hola", MDNS_GROUP, "on the same server")
        hears("A", c, "mdns-c", MDNS_GROUP, "on the same server")
        hears("B", c, "[MOTD]c[/MOTD]", MINECRAFT_GROUP, "across the backbone")
        assert game["B"].from_(a.address, "hola")
        assert strangers("D", d.address) == []

        # Caro leaves, Ana removes Beto's peer: neither hears A any more; nothing else changed for them.
        left = caro.patch(f"/api/client/network/partys/{room['id']}", json={"operation": "leave", "peer": c.peer_id})
        assert left.status_code == 200, left.text
        removed = ana.patch(
            f"/api/client/network/partys/{room['id']}", json={"operation": "remove_peer", "peer": b.peer_id}
        )
        assert removed.status_code == 200, removed.text
        settled()
        send(a.ns, BROADCAST, GAME_PORT, "adios", 3)
        send(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, "adios", 3)
        settle(1.5)
        for listener in (game["B"], game["C"], minecraft["B"], minecraft["C"]):
            assert listener.from_(a.address, "adios") == [], listener.ns.name

        # Beto joins again; A floods: B gets what the limit allows, the rest is dropped on server 1 and counted.
        join(room, beto, b)
        settled()
        hears("B", a, "again")
        limited_before = relay_metric(node_1, metrics_port, "vpn_agent_relay_packets_total", "limited")
        send(a.ns, BROADCAST, GAME_PORT, "flood", 3000)
        settle(1.5)
        received = len(game["B"].from_(a.address, "flood"))
        limited = relay_metric(node_1, metrics_port, "vpn_agent_relay_packets_total", "limited") - limited_before
        assert received <= 120, received
        assert limited >= 4 * max(received, 1), (limited, received)

        # Caro joins again with C, then moves C's peer to server 2 and loads the new file: C's discovery now leaves
        # from server 2, to B beside it and to A across the backbone, and both reach C at its new address.
        join(room, caro, c)
        settled()
        hears("C", a, "antes")
        moving = caro.patch(
            f"/api/client/accounts/peers/{c.peer_id}", json={"operation": "change_server", "server": node_2.server_id}
        )
        assert moving.status_code == 202, moving.text

        def moved() -> dict[str, Any] | None:
            view = caro.get("/api/client/accounts/peers").json()
            peer = next(p for p in view if p["id"] == c.peer_id)
            return peer if peer["server"]["id"] == node_2.server_id and not peer["processing"] else None

        old_c = c.address
        c.address = wait_for(moved, 30, 0.3, "C's peer on server 2")["address"]
        assert c.address != old_c and ipaddress.ip_address(c.address) in ipaddress.ip_network(node_2.subnet)
        settled()
        assert c.config is not None
        wg_quick_down(c.ns, c.config)
        c.config = wg_quick_up(
            c.ns, caro.get(f"/api/client/accounts/peers/{c.peer_id}").text, unique_name("wgc"), world.workdir
        )
        hears("B", c, "desde-2", what="on C's new server")
        hears("A", c, "desde-2", what="from C's new server")
        hears("A", c, "mdns-desde-2", MDNS_GROUP)
        hears("C", a, "hacia-2", what="at C's new address")
        hears("C", a, "[MOTD]hacia-2[/MOTD]", MINECRAFT_GROUP)
        hears("C", b, "vecino", what="from B beside it")
        wait_for(lambda: members().get(c.address, ("",))[0] == "Servidor 2", 20, 0.3, "the room page showing C moved")
        # (Copies to B and C have arrived: one to D would have too; the last check, after a pause, looks again.)
        assert strangers("D", d.address) == [], "D, beside B and C on server 2, heard the room"

        # Staff disable B's peer (expiry disables it the same way): A's and C's discovery stop reaching B, and B's
        # stops reaching them, while A and C keep hearing each other.
        off = admin.patch(f"/api/admin/peers/{b.peer_id}", json={"active": False})
        assert off.status_code == 200, off.text
        settled()
        send(b.ns, BROADCAST, GAME_PORT, "apagado-b", 3)
        hears("C", a, "apagado-a", what="while B is disabled")
        hears("A", c, "apagado-c", what="while B is disabled")
        settle(1.5)
        assert game["B"].from_(a.address, "apagado") == [] and game["B"].from_(c.address, "apagado") == []
        assert game["A"].from_(b.address, "apagado") == [] and game["C"].from_(b.address, "apagado") == []
        # Enabled again, B is still in the room (it never left): once its device reconnects, it hears them again.
        on = admin.patch(f"/api/admin/peers/{b.peer_id}", json={"active": True})
        assert on.status_code == 200, on.text
        settled()
        assert b.config is not None
        text = b.config.read_text()
        wg_quick_down(b.ns, b.config)  # its sessions died with the key on the server: reconnect rather than wait
        b.config = wg_quick_up(b.ns, text, unique_name("wgc"), world.workdir)
        hears("B", a, "encendido", what="after B was enabled again")
        hears("A", b, "encendido-b")

        # Beto deletes his account: B's peer goes, and its address is free. A new peer of Caro's, in no room, gets
        # it on B's device: it hears none of the room's discovery and its own reaches nobody.
        old_b = b.address
        gone = beto.post("/api/client/settings/delete-account", json={"password": PASSWORD})
        assert gone.status_code == 200, gone.text
        settled()
        created = admin.post("/api/admin/peers", json={"username": "caro", "name": "dispE", "server": node_2.server_id})
        assert created.status_code == 201, created.text
        # The premise of this step: the lowest free address, B's, goes to the next peer on its server.
        assert created.json()["address"] == old_b, (created.json()["address"], old_b)
        settled()
        wg_quick_down(b.ns, b.config)
        e = Device(b.ns, "2", created.json()["address"], created.json()["id"])
        text = caro.get(f"/api/client/accounts/peers/{e.peer_id}").text
        e.config = wg_quick_up(e.ns, text, unique_name("wgc"), world.workdir)
        wait_for(lambda: e.ns.ping(INTERNET, 1, 1), 20, 0.2, "E's tunnel up")
        at_e = (game["B"], minecraft["B"], mdns["B"])  # B's namespace, now E's device
        marks = [len(listener.packets) for listener in at_e]
        send(e.ns, BROADCAST, GAME_PORT, "nuevo", 3)
        send(e.ns, MINECRAFT_GROUP, MINECRAFT_PORT, "nuevo", 3)
        hears("C", a, "sin-b", what="after B's account was deleted")
        hears("A", c, "sin-b")
        hears("C", a, "[MOTD]sin-b[/MOTD]", MINECRAFT_GROUP)
        hears("A", c, "mdns-sin-b", MDNS_GROUP)
        settle(1.5)
        new_at_e = [
            p for listener, mark in zip(at_e, marks, strict=True) for p in listener.packets[mark:] if p[0] != e.address
        ]
        assert new_at_e == [], "the stranger now holding B's old address hears the room"
        for name in "ACD":
            assert game[name].with_prefix("nuevo") == [] and minecraft[name].with_prefix("nuevo") == [], name
        assert strangers("D", d.address) == []
    finally:
        for listener in listeners:
            listener.stop()
        for node in world.nodes.values():
            if node.agent is not None:
                node.agent.ensure_stopped()
        cp.stop()
