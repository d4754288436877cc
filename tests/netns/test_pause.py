"""Pause and resume on real WireGuard (docs/api.md, "Pause and resume"): the customer pauses their own peer, the
node drops its key and the downloaded tunnel stops answering; they resume it and the same file works again, with a
fresh handshake.

Topology (namespaces made here): one client on a veth to the server namespace, which holds the server's endpoint
address on its loopback. The real control plane runs on the host, the real agent and wireguard-go in the server
namespace, and the customer's device is `wg-quick` in the client namespace with the file the API hands out.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from agent_process import AgentProcess
from control_plane import ADMIN, Api, ControlPlane
from netns import Namespace, unique_name, veth, wait_for, wg_quick_up
from test_shared_config import public_key_of

ENDPOINT = "10.250.8.1"  # the server's address, as the customer's file names it
TUNNEL_GATEWAY = "10.8.0.1"  # the node's own tunnel address: what the client pings through the tunnel
CUSTOMER = ("ana", "ana-clave-segura-1")


@dataclass
class Site:
    server: Namespace
    client: Namespace
    wg_interface: str
    workdir: Path

    def node_peers(self) -> set[str]:
        return set(self.server.run(["wg", "show", self.wg_interface, "peers"], check=False).stdout.split())


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    made: list[Namespace] = []
    try:
        server, client = Namespace("srvp"), Namespace("clip")
        made += [server, client]
        server.run(["ip", "addr", "add", f"{ENDPOINT}/32", "dev", "lo"])
        server.run(["ip", "link", "set", "lo", "up"])
        # The agent's NAT names an egress interface; nothing here leaves through it (a veth pair kept inside).
        server.run(["ip", "link", "add", "egr0", "type", "veth", "peer", "name", "egr1"])
        for link in ("egr0", "egr1"):
            server.run(["ip", "link", "set", link, "up"])
        veth(server, "c1", "10.238.0.1/24", client, "up0", "10.238.0.2/24")
        client.run(["ip", "route", "add", ENDPOINT, "via", "10.238.0.1"])
        site = Site(server, client, unique_name("wgp"), tmp_path)
        server.wireguard_interfaces.add(site.wg_interface)
        yield site
    finally:
        for ns in reversed(made):
            ns.delete()


@pytest.fixture
def control(site: Site) -> Iterator[ControlPlane]:
    cp = ControlPlane(site.workdir, operation_timeout=30)
    cp.start()
    yield cp
    cp.stop()


def test_a_paused_peer_stops_tunnelling_and_resumes_with_a_fresh_handshake(site: Site, control: ControlPlane) -> None:
    cp = control
    admin = Api(cp.url, *ADMIN, admin=True)
    assert admin.http.put("/api/client/register", json={"username": CUSTOMER[0], "password": CUSTOMER[1]}).is_success
    customer = Api(cp.url, *CUSTOMER)
    created = admin.post(
        "/api/admin/servers",
        json={"name": "Servidor P", "address": ENDPOINT, "tunnel_subnet": "10.8.0.0/24", "ubication": "Pruebas"},
    )
    assert created.status_code == 201, created.text
    server_id = created.json()["server"]["id"]
    agent = AgentProcess(
        site.server,
        site.workdir / "agent",
        control_url=cp.grpc_target,
        node_id=server_id,
        credential=created.json()["credential"],
        interface=site.wg_interface,
        egress_interface="egr0",
    )
    agent.start()
    try:
        wait_for(
            lambda: all(s["online"] and s["public_key"] for s in admin.get("/api/admin/servers").json()),
            30,
            0.3,
            "agent online",
        )
        answer = admin.post("/api/admin/peers", json={"username": "ana", "name": "movil", "server": server_id})
        assert answer.status_code == 201, answer.text
        peer_id = answer.json()["id"]
        peer_url = f"/api/client/accounts/peers/{peer_id}"
        config = customer.get(peer_url).text
        key = public_key_of(config)
        wait_for(lambda: key in site.node_peers(), 15, 0.2, "the node holding the new peer")
        ifname = unique_name("wgc")
        wg_quick_up(site.client, config, ifname, site.workdir)

        def tunnel_answers() -> bool:
            return site.client.ping(TUNNEL_GATEWAY, 1, 1)

        def client_handshake() -> int:
            """The device's latest handshake with the server (Unix seconds; 0: none yet)."""
            out = site.client.run(["wg", "show", ifname, "latest-handshakes"]).stdout.split()
            return int(out[1]) if len(out) == 2 else 0

        wait_for(tunnel_answers, 15, 0.2, "the tunnel answering")
        assert client_handshake() > 0

        # Pause: synchronous; the node drops the key and the tunnel the device keeps up stops answering.
        paused = customer.patch(peer_url, json={"operation": "pause"})
        assert paused.status_code == 200, paused.text
        assert paused.json()["paused"] is True
        assert paused.json()["message"].startswith("Peer movil en pausa: no tendrá conexión")
        wait_for(lambda: key not in site.node_peers(), 15, 0.2, "the node dropping the paused peer")
        assert not site.client.ping(TUNNEL_GATEWAY, 3, 1), "a paused peer still passes traffic"
        # The file stays downloadable, unchanged: resuming needs nothing new on the device.
        assert customer.get(peer_url).text == config

        # Resume: the same tunnel, never brought down, works again after a new handshake.
        resumed_at = time.time()
        resumed = customer.patch(peer_url, json={"operation": "resume"})
        assert resumed.status_code == 200, resumed.text
        assert resumed.json()["paused"] is False
        assert resumed.json()["message"] == "Peer movil reanudado: ya puede conectarse con su configuración de siempre."
        wait_for(lambda: key in site.node_peers(), 15, 0.2, "the node holding the resumed peer again")
        wait_for(tunnel_answers, 20, 0.2, "the tunnel answering after the resume")
        assert client_handshake() >= int(resumed_at), "no fresh handshake after the resume"
    finally:
        agent.ensure_stopped()
