"""The whole product on real WireGuard: the real control plane, real agents, and a customer's downloaded file.

Topology (namespaces made here): client --veth--> server A and server B (agent + wireguard-go + nftables each)
--veth--> internet (10.250.0.1 on its loopback). The control plane runs on the host; agents reach it through a Unix
socket. The customer's browser is a WebSocket client of /ws, and the customer's device is `wg-quick` in the client
namespace using exactly the file the API hands out.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from agent_process import AgentProcess
from control_plane import ADMIN, Api, ControlPlane
from netns import Namespace, unique_name, veth, wait_for, wg_quick_down, wg_quick_up
from websockets.sync.client import connect

INTERNET = "10.250.0.1"
CUSTOMER = ("ana", "ana-clave-segura-1")


@dataclass
class Node:
    name: str
    ns: Namespace
    endpoint: str  # the server's address on the client's side
    subnet: str
    wg_interface: str = field(default_factory=lambda: unique_name("wge"))
    # Servers that allow rooms also bring up a backbone interface: its wireguard-go socket needs a unique name too.
    backbone_interface: str = field(default_factory=lambda: unique_name("wgb"))
    agent: AgentProcess | None = None
    server_id: str = ""

    def peers(self) -> set[str]:
        return set(self.ns.run(["wg", "show", self.wg_interface, "peers"], check=False).stdout.split())


@dataclass
class World:
    client: Namespace
    nodes: dict[str, Node]
    workdir: Path


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made: list[Namespace] = []
    try:
        internet, client = Namespace("inet"), Namespace("cli")
        made += [internet, client]
        internet.run(["ip", "addr", "add", f"{INTERNET}/32", "dev", "lo"])
        internet.run(["ip", "link", "set", "lo", "up"])
        nodes = {}
        for i, name in enumerate(("A", "B"), start=1):
            ns = Namespace(f"srv{name.lower()}")
            made.append(ns)
            veth(ns, "egr0", f"10.20{i}.0.1/24", internet, f"up{i}", f"10.20{i}.0.2/24")
            ns.run(["ip", "route", "add", "default", "via", f"10.20{i}.0.2"])
            veth(ns, "cl0", f"10.21{i}.0.1/24", client, f"to{name.lower()}", f"10.21{i}.0.2/24")
            node = Node(name, ns, f"10.21{i}.0.1", f"10.{7 + i}.0.0/24")
            ns.wireguard_interfaces.update({node.wg_interface, node.backbone_interface})
            nodes[name] = node
        yield World(client, nodes, tmp_path)
    finally:
        for ns in reversed(made):
            ns.delete()


@pytest.fixture
def control(world: World) -> Iterator[ControlPlane]:
    cp = ControlPlane(world.workdir, operation_timeout=30)
    cp.start()
    yield cp
    cp.stop()


class Browser:
    """The customer's open dashboard: every push message the server sends, in order."""

    def __init__(self, cp: ControlPlane, token: str) -> None:
        self.messages: list[dict[str, Any]] = []
        self._socket = connect(f"ws://127.0.0.1:{cp.port}/ws?token={token}")
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for text in self._socket:
                self.messages.append(json.loads(text))
        except Exception:
            pass

    def wait(self, kind: str, where: Any = lambda data: True, within: float = 20) -> dict[str, Any]:
        found: list[dict[str, Any]] = []

        def seen() -> bool:
            found[:] = [m for m in self.messages if m["type"] == kind and where(m.get("data") or {})]
            return bool(found)

        wait_for(seen, within, 0.1, f"a {kind} push")
        return found[-1]

    def close(self) -> None:
        self._socket.close()


def pings(ns: Namespace, within: float = 15) -> None:
    wait_for(lambda: ns.ping(INTERNET, 1, 1), within, 0.2, f"ping {INTERNET} from {ns.name}")


def test_a_downloaded_config_tunnels_and_every_operation_comes_back_as_a_push(
    world: World, control: ControlPlane
) -> None:
    cp = control
    assert Api(cp.url, *ADMIN, admin=True)  # staff login works on the fresh deployment
    admin = Api(cp.url, *ADMIN, admin=True)
    answer = admin.http.put("/api/client/register", json={"username": CUSTOMER[0], "password": CUSTOMER[1]})
    assert answer.status_code == 201, answer.text
    customer = Api(cp.url, *CUSTOMER)

    # An admin creates both servers and starts their agents with the one-time credentials.
    for node in world.nodes.values():
        created = admin.post(
            "/api/admin/servers",
            json={
                "name": f"Servidor {node.name}",
                "address": node.endpoint,
                "tunnel_subnet": node.subnet,
                "ubication": "Pruebas",
                "allow_partys": True,
            },
        )
        assert created.status_code == 201, created.text
        node.server_id = created.json()["server"]["id"]
        node.agent = AgentProcess(
            node.ns,
            world.workdir / f"agent-{node.name}",
            control_url=cp.grpc_target,
            node_id=node.server_id,
            credential=created.json()["credential"],
            interface=node.wg_interface,
            backbone_interface=node.backbone_interface,
            egress_interface="egr0",
        )
        node.agent.start()

    def servers() -> dict[str, dict[str, Any]]:
        return {s["id"]: s for s in admin.get("/api/admin/servers").json()}

    wait_for(lambda: all(s["public_key"] and s["online"] for s in servers().values()), 30, 0.3, "agents online")

    browser = Browser(cp, customer.access)
    try:
        browser.wait("auth")
        node_a, node_b = world.nodes["A"], world.nodes["B"]
        created = admin.post("/api/admin/peers", json={"username": "ana", "name": "movil", "server": node_a.server_id})
        assert created.status_code == 201, created.text
        peer_id = created.json()["id"]
        pushed = browser.wait("created_peer", lambda d: d.get("id") == peer_id)
        assert pushed["data"]["processing"] is False

        # The customer's file, as downloaded, brings a real tunnel up and reaches the internet through NAT.
        first = customer.get(f"/api/client/accounts/peers/{peer_id}")
        assert first.status_code == 200
        conf_1 = wg_quick_up(world.client, first.text, unique_name("wgc"), world.workdir)
        pings(world.client)
        mirror = customer.get("/api/client/accounts/peers").json()[0]["mirror_link"]
        assert customer.http.get(mirror).text == first.text

        stats = browser.wait(
            "peer_stats", lambda d: any(p["id"] == peer_id and p["latest_handshake"] > 0 for p in d.get("peers", []))
        )
        assert stats["data"]["peers"][0]["rx_bytes"] > 0

        # Regenerate: asynchronous; the push says when the node swapped the keys.
        answer = customer.patch(f"/api/client/accounts/peers/{peer_id}", json={"operation": "regenerate"})
        assert answer.status_code == 202
        done = browser.wait("updated_peer", lambda d: d.get("id") == peer_id and not d["processing"])
        assert done["message"] == "Peer movil regenerado correctamente."
        assert not world.client.ping(INTERNET, 3, 1), "the old configuration still passes traffic"
        wg_quick_down(world.client, conf_1)
        second = customer.get(f"/api/client/accounts/peers/{peer_id}")
        assert second.text != first.text
        conf_2 = wg_quick_up(world.client, second.text, unique_name("wgc"), world.workdir)
        pings(world.client)
        wg_quick_down(world.client, conf_2)

        # Change server: the new node adds the peer, the old one drops it, the new file works.
        before = len(browser.messages)
        answer = customer.patch(
            f"/api/client/accounts/peers/{peer_id}", json={"operation": "change_server", "server": node_b.server_id}
        )
        assert answer.status_code == 202
        moved = browser.wait(
            "updated_peer",
            lambda d: d.get("id") == peer_id and not d["processing"] and d["server"]["id"] == node_b.server_id,
        )
        assert browser.messages.index(moved) >= before
        key = next(line.split("=", 1)[1].strip() for line in second.text.splitlines() if line.startswith("PrivateKey"))
        public = subprocess.run(["wg", "pubkey"], input=key, capture_output=True, text=True, check=True).stdout.strip()
        wait_for(lambda: public not in node_a.peers(), 30, 0.2, "server A dropping the peer")
        assert public in node_b.peers()
        third = customer.get(f"/api/client/accounts/peers/{peer_id}")
        assert f"Endpoint = {node_b.endpoint}:51820" in third.text
        wg_quick_up(world.client, third.text, unique_name("wgc"), world.workdir)
        pings(world.client)

        # Every server ends in sync with the control plane.
        wait_for(lambda: all(s["in_sync"] for s in servers().values()), 30, 0.3, "servers in sync")
    finally:
        browser.close()
        for node in world.nodes.values():
            if node.agent is not None:
                node.agent.ensure_stopped()
        log = cp.log()
        for secret in (key if "key" in dir() else "",):
            assert not secret or secret not in log
