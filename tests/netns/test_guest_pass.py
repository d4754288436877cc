"""A guest pass on real WireGuard (docs/payments.md, "Guest passes"): Ana buys a pass for her room through the fake
QvaPay, Beto claims it. The file he downloads is a split tunnel (docs/rooms.md, "Guest pass peers"): with it his
peer reaches Ana's device, his game's LAN broadcast and multicast reach her through the node's relay, and the
internet stays his own (reached through his own connection, not the tunnel). The node is what enforces the pass:
Beto rewrites his file to route everything through the tunnel (a guest can edit their file), and the internet,
which Ana's peer reaches through the same node, still does not answer him. When its hours are over the node drops
the peer, the same file stops answering and the node's room-only set is empty again.

Topology: one node (tests/netns/one_node.py) with two devices, each `wg-quick` with the file the API hands out, and an
"internet" namespace behind the node's egress interface; the real control plane on the host, paid through the fake
QvaPay in this process. Beto's own connection to the internet is his veth to the node's namespace (a default route
there, and a route back to his veth's subnet in the internet namespace): a plain router, no tunnel, no NAT. The pass's
end is brought forward in the control plane's database (its claim moment copied into its end), so the expiry jobs
find it due at once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from control_plane import ADMIN, Api, ControlPlane
from discovery import Listener, send
from netns import Namespace, unique_name, wait_for, wg_quick_down, wg_quick_up
from one_node import EGRESS_NEXT_HOP, TUNNEL_GATEWAY, Site, client_address, one_node, public_key_of, start_node

from controlplane.demo.qvapay import APP_ID, APP_SECRET, FakeQvaPay

ENDPOINT = "10.250.9.1"
INTERNET = "10.250.9.100"  # on the internet namespace's loopback, behind the node's egress
PASSWORD = "clave-segura-de-prueba-1"
GAME_PORT = 27015  # Counter-Strike's LAN browser
MINECRAFT_GROUP, MINECRAFT_PORT = "224.0.2.60", 4445  # Minecraft Java's LAN world announcement
# What the guest's downloaded file sends into the tunnel: the node's subnet (one_node.start_node) and discovery.
SPLIT = "10.8.0.0/24, 224.0.0.0/4, 255.255.255.255/32"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with one_node(tmp_path, "g", ENDPOINT, clients=2, internet=INTERNET) as made:
        yield made


@pytest.fixture
def qvapay() -> Iterator[FakeQvaPay]:
    with FakeQvaPay() as server:
        yield server  # type: ignore[misc]


@pytest.fixture
def control(site: Site, qvapay: FakeQvaPay) -> Iterator[ControlPlane]:
    cp = ControlPlane(site.workdir, operation_timeout=30)
    cp.env.update(
        {
            "VPN_QVAPAY_APP_ID": APP_ID,
            "VPN_QVAPAY_APP_SECRET": APP_SECRET,
            "VPN_QVAPAY_BASE_URL": qvapay.base_url,
            "VPN_EXPIRY_INTERVAL": "1",
        }
    )
    cp.start()
    yield cp
    cp.stop()


def test_a_claimed_pass_reaches_the_room_and_ends_on_the_wire(
    site: Site, control: ControlPlane, qvapay: FakeQvaPay
) -> None:
    cp = control
    admin = Api(cp.url, *ADMIN, admin=True)
    people: dict[str, Api] = {}
    for username, alias in (("ana", "Ana"), ("beto", "Beto")):
        assert admin.http.put("/api/client/register", json={"username": username, "password": PASSWORD}).is_success
        people[username] = Api(cp.url, username, PASSWORD)
        assert people[username].patch("/api/client/settings", json={"alias": alias}).status_code == 200
    ana, beto = people["ana"], people["beto"]
    assert admin.patch("/api/admin/switches", json={"allow_payments_qvapay": True}).status_code == 200
    plan = admin.post(
        "/api/admin/plans", json={"name": "Pase 24 h", "validity_hours": 24, "price": "1.50", "guest_pass": True}
    )
    assert plan.status_code == 201, plan.text
    server_id, agent = start_node(site, cp, admin, "Servidor G")
    devices = site.clients
    try:
        rooms_on = admin.patch(f"/api/admin/servers/{server_id}", json={"allow_partys": True})
        assert rooms_on.status_code == 200, rooms_on.text
        made = admin.post("/api/admin/peers", json={"username": "ana", "name": "ana-pc", "server": server_id})
        assert made.status_code == 201, made.text
        ana_peer = made.json()["id"]
        room = ana.post("/api/client/network/partys", json={"name": "LAN", "peer": ana_peer})
        assert room.status_code == 201, room.text
        room_id = room.json()["data"]["id"]

        # Ana buys the pass; the gateway takes the money and notifies; the pass is ready.
        bought = ana.post("/api/client/guest-passes", json={"party": room_id, "plan": plan.json()["id"]})
        assert bought.status_code == 200, bought.text
        transaction = qvapay.by_remote_id(bought.json()["remote_id"])["uuid"]
        qvapay.pay(transaction)
        path, body, headers = qvapay.notification(transaction)
        notified = admin.http.post(path, content=body, headers={**headers, "Content-Type": "application/json"})
        assert notified.status_code == 200 and notified.json()["credited"] is True, notified.text
        (ready,) = ana.get("/api/client/guest-passes").json()
        assert ready["status"] == "ready", ready
        token = ready["url"].rsplit("/", 1)[1]

        # Beto claims it: a peer of his, in Ana's room.
        claimed = beto.post(f"/api/client/guest-passes/claim/{token}", json={"name": "beto-pc"})
        assert claimed.status_code == 200, claimed.text
        beto_peer = claimed.json()["peer_id"]

        configs = {
            "ana": ana.get(f"/api/client/accounts/peers/{ana_peer}").text,
            "beto": beto.get(f"/api/client/accounts/peers/{beto_peer}").text,
        }
        assert allowed_ips(configs["ana"]) == "0.0.0.0/0, ::/0"
        assert allowed_ips(configs["beto"]) == SPLIT
        assert "DNS" not in configs["beto"], "the guest's file overrides the device's own resolver"
        keys = {who: public_key_of(text) for who, text in configs.items()}
        wait_for(lambda: set(keys.values()) <= site.node_peers(), 20, 0.2, "the node holding both peers")
        # Beto's own internet connection, there before he joins and meant to stay his.
        own_internet(site, devices[1], 2)
        tunnels = {}
        for device, who in zip(devices, ("ana", "beto"), strict=True):
            ifname = unique_name("wgc")
            tunnels[who] = (ifname, wg_quick_up(device, configs[who], ifname, site.workdir))
        members = ana.get(f"/api/client/network/partys/{room_id}").json()["peers"]
        address = {p["name"]: p["private_ip"] for p in members}
        assert set(address) == {"ana-pc", "beto-pc"}
        wait_for(lambda: devices[1].ping(address["ana-pc"], 1, 1), 20, 0.3, "Beto's guest peer reaching Ana's")
        wait_for(lambda: devices[0].ping(address["beto-pc"], 1, 1), 20, 0.3, "Ana's peer reaching Beto's")

        # A LAN game on Beto's device announces itself to 255.255.255.255 and to Minecraft's group: with the split
        # routes both enter the tunnel, and the node's relay hands them to Ana's device.
        game, minecraft = Listener(devices[0], GAME_PORT), Listener(devices[0], MINECRAFT_PORT)
        try:
            for listener, dest, prefix in ((game, "255.255.255.255", "cs"), (minecraft, MINECRAFT_GROUP, "[MOTD]")):
                wait_for(
                    lambda listener=listener, dest=dest, prefix=prefix: heard(
                        listener, devices[1], address["beto-pc"], dest, prefix
                    ),
                    20,
                    0.3,
                    f"Ana's device hearing the guest's discovery sent to {dest}:{listener.port}",
                )
        finally:
            game.stop()
            minecraft.stop()

        # The internet: Ana's peer reaches it through the node's NAT; Beto's device reaches it through his own
        # connection, not the tunnel (through the tunnel the node would drop it: see below).
        wait_for(lambda: devices[0].ping(INTERNET, 1, 1), 20, 0.3, "Ana's peer reaching the internet")
        beto_if = tunnels["beto"][0]
        assert beto_if not in route_to(devices[1], INTERNET), "the guest's file routes the internet into the tunnel"
        assert devices[1].ping(INTERNET, 3, 1), "the guest lost their own internet while connected"

        # Beto edits his file to route everything through the tunnel (nothing stops a guest doing so) and brings it
        # up instead: the node still forwards nothing of his outside the room, not even after Ana's ping went
        # through (so the node's NAT and route work). The node's own tunnel address answers him, as any member.
        wg_quick_down(devices[1], tunnels["beto"][1])
        edited = configs["beto"].replace(f"AllowedIPs = {SPLIT}", "AllowedIPs = 0.0.0.0/0, ::/0")
        assert allowed_ips(edited) == "0.0.0.0/0, ::/0"
        beto_if = unique_name("wgc")
        wg_quick_up(devices[1], edited, beto_if, site.workdir)
        wait_for(lambda: devices[1].ping(address["ana-pc"], 1, 1), 20, 0.3, "the edited file reaching Ana's")
        assert beto_if in route_to(devices[1], INTERNET), "the edited file does not route the internet to the tunnel"
        assert devices[0].ping(INTERNET, 1, 2), "Ana's peer lost the internet"
        assert not devices[1].ping(INTERNET, 3, 1), "a guest pass's peer reaches the internet through the node"
        assert devices[1].ping(TUNNEL_GATEWAY, 2, 1), "the guest's peer does not reach the node's tunnel address"
        assert room_only(site) == [address["beto-pc"]]

        # Its hours pass: the expiry job drops it from the node, the pass's job deletes it; the file stops working.
        database = site.workdir / "var" / "vpn.sqlite3"
        with sqlite3.connect(database, timeout=10) as db:
            db.execute("UPDATE guest_passes SET ends_at = claimed_at WHERE peer_id = ?", (beto_peer,))
            db.execute(
                "UPDATE peers SET expiration_date = (SELECT claimed_at FROM guest_passes WHERE peer_id = peers.id)"
                " WHERE id = ?",
                (beto_peer,),
            )
        wait_for(lambda: keys["beto"] not in site.node_peers(), 30, 0.3, "the node dropping the ended pass's peer")
        assert keys["ana"] in site.node_peers()
        assert not devices[1].ping(address["ana-pc"], 3, 1), "an ended guest pass still reaches the room"
        assert room_only(site) == [], "the restriction outlived the guest's peer"
        wait_for(
            lambda: [p["name"] for p in ana.get(f"/api/client/network/partys/{room_id}").json()["peers"]] == ["ana-pc"],
            30,
            0.5,
            "the ended pass's peer out of the room",
        )
        (ended,) = ana.get("/api/client/guest-passes").json()
        assert (ended["status"], ended["guest"]) == ("ended", "Beto")
    finally:
        agent.ensure_stopped()


def room_only(site: Site) -> list[str]:
    """The node's room-only set (node_agent/firewall.py): the guests' addresses, as nftables lists them."""
    listed = site.server.run(["nft", "-j", "list", "set", "inet", "vpn_node", "room_only_v4"]).stdout
    elements = json.loads(listed)["nftables"][1]["set"].get("elem", [])
    return sorted(e if isinstance(e, str) else e["prefix"]["addr"] for e in elements)


def allowed_ips(config: str) -> str:
    (line,) = [line for line in config.splitlines() if line.startswith("AllowedIPs")]
    return line.split("=", 1)[1].strip()


def own_internet(site: Site, device: Namespace, n: int) -> None:
    """Client n's own connection to the internet: a default route through its veth, and the internet namespace's
    route back to that veth's subnet (the node's namespace forwards it as a plain router: no tunnel, no NAT)."""
    assert site.internet is not None
    device.run(["ip", "route", "add", "default", "via", client_address(n, 1)])
    subnet = client_address(n, 0) + "/24"
    site.internet.run(["ip", "route", "add", subnet, "via", f"{EGRESS_NEXT_HOP}.1"])


def route_to(device: Namespace, address: str) -> str:
    """How the device's kernel routes a packet to `address` (`ip route get`), e.g. "... dev wgc... ..."."""
    return device.run(["ip", "route", "get", address]).stdout


def heard(listener: Listener, sender: Namespace, source: str, dest: str, prefix: str) -> bool:
    """Send once more (the relay may still be settling) and look for it, from the sender's tunnel address."""
    send(sender, dest, listener.port, prefix)
    return bool(listener.from_(source, prefix))
