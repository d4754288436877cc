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
from pathlib import Path

import pytest
from control_plane import ADMIN, Api, ControlPlane
from netns import unique_name, wait_for, wg_quick_up
from one_node import TUNNEL_GATEWAY, Site, one_node, public_key_of, start_node

ENDPOINT = "10.250.8.1"  # the server's address, as the customer's file names it
CUSTOMER = ("ana", "ana-clave-segura-1")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with one_node(tmp_path, "p", ENDPOINT) as made:
        yield made


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
    server_id, agent = start_node(site, cp, admin, "Servidor P")
    client = site.clients[0]
    try:
        answer = admin.post("/api/admin/peers", json={"username": "ana", "name": "movil", "server": server_id})
        assert answer.status_code == 201, answer.text
        peer_id = answer.json()["id"]
        peer_url = f"/api/client/accounts/peers/{peer_id}"
        config = customer.get(peer_url).text
        key = public_key_of(config)
        wait_for(lambda: key in site.node_peers(), 15, 0.2, "the node holding the new peer")
        ifname = unique_name("wgc")
        wg_quick_up(client, config, ifname, site.workdir)

        def tunnel_answers() -> bool:
            return client.ping(TUNNEL_GATEWAY, 1, 1)

        def client_handshake() -> int:
            """The device's latest handshake with the server (Unix seconds; 0: none yet)."""
            out = client.run(["wg", "show", ifname, "latest-handshakes"]).stdout.split()
            return int(out[1]) if len(out) == 2 else 0

        wait_for(tunnel_answers, 15, 0.2, "the tunnel answering")
        assert client_handshake() > 0

        # Pause: synchronous; the node drops the key and the tunnel the device keeps up stops answering.
        paused = customer.patch(peer_url, json={"operation": "pause"})
        assert paused.status_code == 200, paused.text
        assert paused.json()["paused"] is True
        assert paused.json()["message"].startswith("Peer movil en pausa: no tendrá conexión")
        wait_for(lambda: key not in site.node_peers(), 15, 0.2, "the node dropping the paused peer")
        assert not client.ping(TUNNEL_GATEWAY, 3, 1), "a paused peer still passes traffic"
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
