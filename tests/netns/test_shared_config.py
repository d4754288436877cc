"""One device per peer on real WireGuard (docs/operations.md, "One device per peer"): two client namespaces bring up
the same downloaded configuration and take turns sending, and the customer is warned; one client that changes its
address once is not.

Topology (namespaces made here): cli1 and cli2, each on its own veth to the server namespace, reach the server's
endpoint address (on the server's loopback) through it, so the node sees each client at its own address. The real
control plane runs on the host, the real agent and wireguard-go in the server namespace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from control_plane import ADMIN, Api, ControlPlane
from netns import Namespace, unique_name, wait_for, wg_quick_down, wg_quick_up
from one_node import TUNNEL_GATEWAY, Site, client_address, one_node, public_key_of, start_node
from test_end_to_end import Browser

ENDPOINT = "10.250.9.1"  # the server's address, as customers' files name it
CUSTOMER = ("ana", "ana-clave-segura-1")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with one_node(tmp_path, "d", ENDPOINT, clients=2) as made:
        yield made


@pytest.fixture
def control(site: Site) -> Iterator[ControlPlane]:
    cp = ControlPlane(site.workdir, operation_timeout=30)
    cp.start()
    yield cp
    cp.stop()


def send_for(client: Namespace, seconds: float) -> None:
    """Traffic through the tunnel for a while (0.25 s apart), whatever answers."""
    count = max(1, int(seconds / 0.25))
    client.run(["ping", "-q", "-c", str(count), "-i", "0.25", "-W", "1", TUNNEL_GATEWAY], check=False)


def test_two_devices_with_one_config_are_warned_and_one_that_moves_is_not(site: Site, control: ControlPlane) -> None:
    cp = control
    admin = Api(cp.url, *ADMIN, admin=True)
    assert admin.http.put("/api/client/register", json={"username": CUSTOMER[0], "password": CUSTOMER[1]}).is_success
    customer = Api(cp.url, *CUSTOMER)
    server_id, agent = start_node(site, cp, admin, "Servidor D")
    browser = Browser(cp, customer.access)
    try:
        browser.wait("auth")
        peer_ids = {}
        for name in ("movil", "compartido"):
            answer = admin.post("/api/admin/peers", json={"username": "ana", "name": name, "server": server_id})
            assert answer.status_code == 201, answer.text
            peer_ids[name] = answer.json()["id"]
            browser.wait("created_peer", lambda d, pid=peer_ids[name]: d.get("id") == pid)

        def warned() -> dict[str, bool]:
            peers = customer.get("/api/client/accounts/peers").json()
            return {p["name"]: p["shared_config_warning"] for p in peers}

        def warning_pushes() -> list[dict[str, Any]]:
            return [m for m in browser.messages if m["type"] == "updated_peer" and m["data"]["shared_config_warning"]]

        cli1, cli2 = site.clients

        # One device that changes address once (Wi-Fi to mobile data): the node follows it, nobody is warned.
        movil = customer.get(f"/api/client/accounts/peers/{peer_ids['movil']}").text
        movil_key = public_key_of(movil)
        conf = wg_quick_up(cli1, movil, unique_name("wgc"), site.workdir)
        send_for(cli1, 2)
        wait_for(
            lambda: site.endpoint(movil_key).startswith(f"{client_address(1)}:"), 10, 0.2, "the first address seen"
        )
        # The new network: a new address, and the tunnel brought up again on it (a new socket, as a phone's
        # WireGuard app rebinds when the network changes; wireguard-go would otherwise keep its old source address).
        wg_quick_down(cli1, conf)
        cli1.run(["ip", "addr", "flush", "dev", "up0"])
        cli1.run(["ip", "addr", "add", f"{client_address(1, 3)}/24", "dev", "up0"])
        cli1.run(["ip", "route", "replace", ENDPOINT, "via", client_address(1, 1)])
        conf = wg_quick_up(cli1, movil, unique_name("wgc"), site.workdir)
        send_for(cli1, 2)
        wait_for(
            lambda: site.endpoint(movil_key).startswith(f"{client_address(1, 3)}:"), 10, 0.2, "the new address seen"
        )
        send_for(cli1, 4)  # several stats reports (every 0.5 s here) at the new address
        assert warned() == {"movil": False, "compartido": False}
        assert warning_pushes() == []
        wg_quick_down(cli1, conf)

        # Two devices with one downloaded file, taking turns: A -> B -> A -> B.
        shared = customer.get(f"/api/client/accounts/peers/{peer_ids['compartido']}").text
        shared_key = public_key_of(shared)
        for client in (cli1, cli2):
            wg_quick_up(client, shared, unique_name("wgc"), site.workdir)
        addresses = {cli1.name: client_address(1, 3), cli2.name: client_address(2)}
        for turn in range(6):
            client = (cli1, cli2)[turn % 2]
            send_for(client, 1)
            wait_for(
                lambda c=client: site.endpoint(shared_key).startswith(f"{addresses[c.name]}:"),
                10,
                0.1,
                f"{client.name}'s turn seen",
            )
            send_for(client, 1.5)  # the node reports it at least twice
            if warning_pushes():
                break
        pushed = browser.wait(
            "updated_peer", lambda d: d.get("id") == peer_ids["compartido"] and d["shared_config_warning"], within=10
        )
        assert pushed["data"]["name"] == "compartido"
        assert warned() == {"movil": False, "compartido": True}
        assert admin.get("/api/admin/overview").json()["peers_shared_config"] == 1
        # Once: they keep fighting, the customer is not told again.
        for turn in range(2):
            send_for((cli1, cli2)[turn % 2], 1.5)
        assert len(warning_pushes()) == 1
    finally:
        browser.close()
        agent.ensure_stopped()
