"""One node and its customers' devices, for the tests of what a single node does on the wire (test_shared_config.py,
test_pause.py): a server namespace holding the endpoint address on its loopback, client namespaces each on its own
veth to it, the real agent and wireguard-go in the server namespace, the real control plane on the host. Asked for,
an "internet" namespace behind the node's egress interface holds one address on its loopback and has no route back to
the tunnel subnet: a client's ping to it is answered only through the node's NAT (test_guest_pass.py).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_process import AgentProcess
from control_plane import Api, ControlPlane
from netns import Namespace, unique_name, veth, wait_for

TUNNEL_GATEWAY = "10.8.0.1"  # the node's own tunnel address: what clients ping through the tunnel
EGRESS_NEXT_HOP = "10.229.0"  # the egress veth's subnet, when there is an internet namespace behind it


@dataclass
class Site:
    server: Namespace
    clients: list[Namespace]
    wg_interface: str
    workdir: Path
    endpoint_address: str  # the server's address, as customers' files name it
    internet: Namespace | None = None  # behind the egress interface, when asked for

    def node_peers(self) -> set[str]:
        """The public keys the node's WireGuard holds now."""
        return set(self.server.run(["wg", "show", self.wg_interface, "peers"], check=False).stdout.split())

    def endpoint(self, public_key: str) -> str:
        """Where the server's WireGuard answers this peer now ("ip:port", or "(none)")."""
        lines = self.server.run(["wg", "show", self.wg_interface, "endpoints"], check=False).stdout.splitlines()
        return next((line.split("\t")[1] for line in lines if line.startswith(public_key + "\t")), "")


def client_address(n: int, host: int = 2) -> str:
    """Client n's address on its veth (host 1 is the server's side)."""
    return f"10.23{n}.0.{host}"


@contextmanager
def one_node(workdir: Path, prefix: str, endpoint_address: str, clients: int = 1, internet: str = "") -> Iterator[Site]:
    """`internet`: an address standing for the internet, behind the egress interface ("" = none: egress leads
    nowhere)."""
    made: list[Namespace] = []
    try:
        server = Namespace(f"srv{prefix}")
        made.append(server)
        server.run(["ip", "addr", "add", f"{endpoint_address}/32", "dev", "lo"])
        server.run(["ip", "link", "set", "lo", "up"])
        inet: Namespace | None = None
        if internet:
            inet = Namespace(f"inet{prefix}")
            made.append(inet)
            inet.run(["ip", "addr", "add", f"{internet}/32", "dev", "lo"])
            inet.run(["ip", "link", "set", "lo", "up"])
            veth(server, "egr0", f"{EGRESS_NEXT_HOP}.1/24", inet, "up0", f"{EGRESS_NEXT_HOP}.2/24")
            server.run(["ip", "route", "add", internet, "via", f"{EGRESS_NEXT_HOP}.2"])
        else:
            # The agent's NAT names an egress interface; nothing here leaves through it (a veth pair kept inside).
            server.run(["ip", "link", "add", "egr0", "type", "veth", "peer", "name", "egr1"])
            for link in ("egr0", "egr1"):
                server.run(["ip", "link", "set", link, "up"])
        made_clients = []
        for n in range(1, clients + 1):
            client = Namespace(f"cli{n}")
            made.append(client)
            veth(server, f"c{n}", f"{client_address(n, 1)}/24", client, "up0", f"{client_address(n)}/24")
            client.run(["ip", "route", "add", endpoint_address, "via", client_address(n, 1)])
            made_clients.append(client)
        site = Site(server, made_clients, unique_name(f"wg{prefix}"), workdir, endpoint_address, inet)
        server.wireguard_interfaces.add(site.wg_interface)
        yield site
    finally:
        for ns in reversed(made):
            ns.delete()


def start_node(site: Site, cp: ControlPlane, admin: Api, name: str) -> tuple[str, AgentProcess]:
    """The server made by the admin and its real agent started and online: (server id, agent)."""
    created = admin.post(
        "/api/admin/servers",
        json={"name": name, "address": site.endpoint_address, "tunnel_subnet": "10.8.0.0/24", "ubication": "Pruebas"},
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
    except BaseException:
        agent.ensure_stopped()
        raise
    return server_id, agent


def public_key_of(config: str) -> str:
    """The public key of a downloaded configuration's private key."""
    private = next(line.split("=", 1)[1].strip() for line in config.splitlines() if line.startswith("PrivateKey"))
    return subprocess.run(["wg", "pubkey"], input=private, capture_output=True, text=True, check=True).stdout.strip()
