"""Make before break on real WireGuard (docs/operations.md): moves and key rotations against nodes that are down,
frozen past the operation timeout, or fail to apply, while the customer's tunnel must keep working.

Same topology as test_end_to_end (client, servers A and B with a real agent and wireguard-go each, an "internet"
namespace). Nodes fail for real: an agent stopped with SIGTERM (its stream ends), frozen with SIGSTOP (the stream
stays open but nothing answers, then SIGCONT after the timeout), or its WireGuard device deleted under it so the
apply fails. After each, `wg show` on every node must match what the API lists and what the downloaded file says.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from agent_process import AgentProcess
from control_plane import ADMIN, Api, ControlPlane
from netns import unique_name, wait_for, wg_quick_up
from test_end_to_end import CUSTOMER, Browser, Node, World, pings, world  # noqa: F401 - `world` is a fixture

# Short, so the timeout cases run in seconds (the timeout job looks every 5 s).
OPERATION_TIMEOUT = 8
PEERS = "/api/client/accounts/peers"


@pytest.fixture
def control(world: World) -> Iterator[ControlPlane]:  # noqa: F811 - uses the imported fixture
    cp = ControlPlane(world.workdir, operation_timeout=OPERATION_TIMEOUT)
    cp.start()
    yield cp
    cp.stop()


@dataclass
class Deployed:
    world: World
    cp: ControlPlane
    admin: Api
    customer: Api
    browser: Browser
    peer_id: str
    config: str  # the file the customer downloaded and brought up

    @property
    def a(self) -> Node:
        return self.world.nodes["A"]

    @property
    def b(self) -> Node:
        return self.world.nodes["B"]

    def servers(self) -> dict[str, dict[str, Any]]:
        return {s["id"]: s for s in self.admin.get("/api/admin/servers").json()}

    def move(self, node: Node) -> Any:
        return self.customer.patch(
            f"{PEERS}/{self.peer_id}", json={"operation": "change_server", "server": node.server_id}
        )

    def assert_one_story(self, node: Node, reconnect_within: float = 15) -> None:
        """The peer is on `node` with the keys of the file first downloaded: in the API, in a fresh download, and
        in `wg show` of that node only; the tunnel passes traffic (within `reconnect_within` seconds: a key the
        node dropped and took back needs a new handshake, which the client starts after about 15 s of silence)."""
        others = [n for n in self.world.nodes.values() if n is not node]
        wait_for(lambda: all(s["in_sync"] and s["online"] for s in self.servers().values()), 30, 0.3, "nodes in sync")
        [listed] = self.customer.get(PEERS).json()
        assert listed["server"]["id"] == node.server_id and listed["processing"] is False
        download = self.customer.get(f"{PEERS}/{self.peer_id}").text
        assert download == self.config, "the customer's file changed although nothing was confirmed"
        public = public_key(self.config)
        assert public in node.peers(), f"server {node.name} lost the customer's key"
        for other in others:
            assert public not in other.peers(), f"server {other.name} kept a key it must not hold"
        pings(self.world.client, within=reconnect_within)


def public_key(config: str) -> str:
    private = next(line.split("=", 1)[1].strip() for line in config.splitlines() if line.startswith("PrivateKey"))
    return subprocess.run(["wg", "pubkey"], input=private, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def deployed(world: World, control: ControlPlane) -> Iterator[Deployed]:  # noqa: F811
    admin = Api(control.url, *ADMIN, admin=True)
    answer = admin.http.put("/api/client/register", json={"username": CUSTOMER[0], "password": CUSTOMER[1]})
    assert answer.status_code == 201, answer.text
    customer = Api(control.url, *CUSTOMER)
    for node in world.nodes.values():
        created = admin.post(
            "/api/admin/servers",
            json={"name": f"Servidor {node.name}", "address": node.endpoint, "tunnel_subnet": node.subnet,
                  "ubication": "Pruebas", "allow_partys": False},
        )  # fmt: skip
        assert created.status_code == 201, created.text
        node.server_id = created.json()["server"]["id"]
        node.agent = AgentProcess(
            node.ns,
            world.workdir / f"agent-{node.name}",
            control_url=control.grpc_target,
            node_id=node.server_id,
            credential=created.json()["credential"],
            interface=node.wg_interface,
            egress_interface="egr0",
        )
        node.agent.start()
    browser = Browser(control, customer.access)
    try:
        servers = lambda: admin.get("/api/admin/servers").json()  # noqa: E731
        wait_for(lambda: all(s["public_key"] and s["online"] for s in servers()), 30, 0.3, "agents online")
        browser.wait("auth")
        a = world.nodes["A"]
        created = admin.post("/api/admin/peers", json={"username": "ana", "name": "movil", "server": a.server_id})
        assert created.status_code == 201, created.text
        peer_id = created.json()["id"]
        browser.wait("created_peer", lambda d: d.get("id") == peer_id)
        config = customer.get(f"{PEERS}/{peer_id}").text
        wg_quick_up(world.client, config, unique_name("wgc"), world.workdir)
        pings(world.client)
        yield Deployed(world, control, admin, customer, browser, peer_id, config)
    finally:
        browser.close()
        for node in world.nodes.values():
            if node.agent is not None:
                if node.agent.proc is not None and node.agent.running:
                    node.agent.proc.send_signal(signal.SIGCONT)
                node.agent.ensure_stopped()


def freeze(node: Node) -> None:
    assert node.agent is not None and node.agent.proc is not None
    node.agent.proc.send_signal(signal.SIGSTOP)


def thaw(node: Node) -> None:
    assert node.agent is not None and node.agent.proc is not None
    node.agent.proc.send_signal(signal.SIGCONT)


def test_a_move_to_a_server_whose_agent_is_stopped_is_refused_and_the_tunnel_keeps_working(
    deployed: Deployed,
) -> None:
    assert deployed.b.agent is not None
    assert deployed.b.agent.stop() == 0
    # Offline at once (its stream ended), in the staff view and in the customer's move list.
    try:
        wait_for(lambda: not deployed.servers()[deployed.b.server_id]["online"], 10, 0.2, "server B offline")
    except AssertionError:
        raise AssertionError(f"{deployed.servers()[deployed.b.server_id]}\n{deployed.cp.log()[-6000:]}") from None
    [option] = deployed.customer.get(f"/api/client/network/{deployed.peer_id}").json()
    assert (option["id"], option["online"]) == (deployed.b.server_id, False)

    refused = deployed.move(deployed.b)
    assert refused.status_code == 409
    assert refused.json()["code"] == "server_offline"
    assert refused.json()["message"].startswith("El servidor elegido no está en línea en este momento.")
    [listed] = deployed.customer.get(PEERS).json()
    assert listed["server"]["id"] == deployed.a.server_id and listed["processing"] is False
    assert public_key(deployed.config) in deployed.a.peers()
    pings(deployed.world.client)  # the customer noticed nothing


def test_a_move_and_a_regenerate_on_frozen_nodes_that_come_back_after_the_timeout(deployed: Deployed) -> None:
    # The move: B accepts the stream but its agent is frozen, so nobody answers.
    freeze(deployed.b)
    accepted = deployed.move(deployed.b)
    assert accepted.status_code == 202, accepted.text
    failed = deployed.browser.wait(
        "error", lambda d: d.get("peer_id") == deployed.peer_id, within=OPERATION_TIMEOUT + 20
    )
    assert failed["message"] == (
        "Hubo un error al intentar cambiar el servidor del peer al servidor Servidor B: el servidor no respondió a"
        " tiempo. El peer movil sigue en el servidor Servidor A y su configuración actual sigue funcionando."
    )
    pings(deployed.world.client)  # the old server never let go
    thaw(deployed.b)  # B now applies the stale move, then the correction after it
    deployed.assert_one_story(deployed.a)

    # The key rotation: A itself is frozen; the node keeps the old key (the device runs without its agent).
    deployed.browser.messages.clear()
    freeze(deployed.a)
    accepted = deployed.customer.patch(f"{PEERS}/{deployed.peer_id}", json={"operation": "regenerate"})
    assert accepted.status_code == 202, accepted.text
    failed = deployed.browser.wait(
        "error", lambda d: d.get("peer_id") == deployed.peer_id, within=OPERATION_TIMEOUT + 20
    )
    assert failed["message"] == (
        "Hubo un error al intentar regenerar el peer movil: el servidor no respondió a tiempo. El peer conserva sus"
        " claves anteriores y su configuración actual sigue funcionando."
    )
    pings(deployed.world.client)
    thaw(deployed.a)  # the late swap is undone by the correction that follows it
    deployed.assert_one_story(deployed.a, reconnect_within=45)


def test_a_node_that_fails_to_apply_a_move_leaves_the_peer_where_it_was(deployed: Deployed) -> None:
    freeze(deployed.b)
    accepted = deployed.move(deployed.b)
    assert accepted.status_code == 202, accepted.text
    # Its WireGuard device vanishes under the agent: applying the move fails for real.
    deployed.b.ns.run(["ip", "link", "del", deployed.b.wg_interface])
    thaw(deployed.b)
    failed = deployed.browser.wait(
        "error", lambda d: d.get("peer_id") == deployed.peer_id, within=OPERATION_TIMEOUT + 20
    )
    assert "el servidor no pudo aplicar el cambio" in failed["message"], failed["message"]
    assert "sigue en el servidor Servidor A" in failed["message"]
    # The agent reconnects and its full state rebuilds the device, without the peer.
    deployed.assert_one_story(deployed.a)


def test_a_regenerate_while_the_peers_own_agent_is_stopped_is_refused_and_works_once_it_is_back(
    deployed: Deployed,
) -> None:
    assert deployed.a.agent is not None
    assert deployed.a.agent.stop() == 0
    wait_for(lambda: not deployed.servers()[deployed.a.server_id]["online"], 10, 0.2, "server A offline")
    # Queued, the swap would time out with nobody to apply it; refused, the customer knows at once.
    refused = deployed.customer.patch(f"{PEERS}/{deployed.peer_id}", json={"operation": "regenerate"})
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "server_offline"
    assert refused.json()["message"].startswith("El servidor de este peer no está en línea en este momento")
    # The device outlives its agent: the customer's tunnel, keys and file are untouched.
    pings(deployed.world.client)
    assert deployed.customer.get(f"{PEERS}/{deployed.peer_id}").text == deployed.config
    assert public_key(deployed.config) in deployed.a.peers()

    deployed.a.agent.start()  # back: its full state holds the old keys, and a new regenerate goes through
    deployed.assert_one_story(deployed.a)
    deployed.browser.messages.clear()
    accepted = deployed.customer.patch(f"{PEERS}/{deployed.peer_id}", json={"operation": "regenerate"})
    assert accepted.status_code == 202, accepted.text
    settled = lambda d: d.get("id") == deployed.peer_id and d.get("processing") is False  # noqa: E731
    done = deployed.browser.wait("updated_peer", settled)
    assert done["message"] == "Peer movil regenerado correctamente."
    fresh = deployed.customer.get(f"{PEERS}/{deployed.peer_id}").text
    assert public_key(fresh) != public_key(deployed.config)
    new, old = public_key(fresh), public_key(deployed.config)
    wait_for(lambda: new in deployed.a.peers() and old not in deployed.a.peers(), 15, 0.2, "A holds the new key only")
