"""A game's LAN discovery, played with real UDP sockets inside namespaces: a sender that broadcasts or multicasts,
and listeners bound to the wildcard address on the game's port (as games are), recording who each packet came
from. Used by the relay tests of the agent layer (both backends) and of the netns layer (two servers)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from agent_fake_control import FakeControlPlane, Session, serve
from agent_process import AgentProcess
from netns import Namespace, unique_name, veth, wait_for

from node_agent.agent import NodeAgent
from node_agent.backends import Backend, make_backend
from node_agent.config import AgentConfig
from node_agent.firewall import Firewall
from node_agent.keys import generate_private_key, public_key_of
from node_agent.reconcile import Changes
from node_agent.relay import RelayLimits
from node_agent.state import Interface, Peer
from protos import agent_pb2

SERVER_PORT = 51840
# In the kernel test layer's VM (software emulation) a Python process takes a minute or more to start: waits there
# are this many times longer.
SLOWER = 5 if os.environ.get("VPN_KERNEL_VM") == "1" else 1

# Binds the wildcard address like a game, prints one JSON line per datagram: [source address, payload].
_LISTEN = """
import json, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
print("ready", flush=True)
while True:
    data, (host, _) = s.recvfrom(65535)
    print(json.dumps([host, data.decode(errors="replace")]), flush=True)
"""

# Sends argv[3] datagrams to argv[1]:argv[2] as fast as it can, payload argv[4] + index (+ padding to argv[5]).
_SEND = """
import socket, sys
dest, port, count, prefix, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
for i in range(count):
    s.sendto(f"{prefix}{i}".encode().ljust(size, b"."), (dest, port))
"""


# Sends argv[4] datagrams of the bytes in hex argv[3] to argv[1]:argv[2], from port argv[5] (0: any), argv[6]
# seconds apart.
_SEND_BYTES = """
import socket, sys, time
dest, port, payload, count = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3]), int(sys.argv[4])
source_port, gap = int(sys.argv[5]), float(sys.argv[6])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
s.bind(("0.0.0.0", source_port))
for i in range(count):
    if i and gap:
        time.sleep(gap)
    s.sendto(payload, (dest, port))
"""


class Listener:
    """A wildcard UDP listener in `ns` on `port`; `packets` fills in as datagrams arrive."""

    def __init__(self, ns: Namespace, port: int) -> None:
        self.ns = ns
        self.port = port
        self.packets: list[tuple[str, str]] = []
        self._proc = ns.popen(
            [sys.executable, "-c", _LISTEN, str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert self._proc.stdout is not None
        ready = self._proc.stdout.readline()
        assert ready.strip() == b"ready", f"listener in {ns.name} did not start"
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            host, payload = json.loads(line)
            self.packets.append((host, payload))

    def from_(self, source: str, prefix: str) -> list[str]:
        """Payloads received from `source` starting with `prefix`."""
        return [payload for host, payload in list(self.packets) if host == source and payload.startswith(prefix)]

    def with_prefix(self, prefix: str) -> list[tuple[str, str]]:
        return [(host, payload) for host, payload in list(self.packets) if payload.startswith(prefix)]

    def stop(self) -> None:
        self._proc.kill()
        self._proc.wait(timeout=5)


def send(ns: Namespace, dest: str, port: int, prefix: str, count: int = 1, size: int = 0) -> None:
    """`count` datagrams from `ns` to `dest` (a broadcast or multicast address) on `port`."""
    ns.run([sys.executable, "-c", _SEND, dest, str(port), str(count), prefix, str(size)])


def send_bytes(
    ns: Namespace, dest: str, port: int, payload: bytes, count: int = 1, source_port: int = 0, gap: float = 0.0
) -> None:
    """`count` copies of `payload` from `ns` to `dest`:`port` (from `source_port` if set: a game server's
    reply), `gap` seconds apart."""
    argv = [sys.executable, "-c", _SEND_BYTES, dest, str(port), payload.hex(), str(count), str(source_port), str(gap)]
    ns.run(argv, timeout=max(60.0, count * gap * 2))


def settle(seconds: float = 1.0) -> None:
    """Let in-flight copies arrive before asserting that something did *not* arrive."""
    time.sleep(seconds)


@dataclass
class Client:
    ns: Namespace
    backend: Backend
    address: str
    public_key: str


@dataclass
class RelayWorld:
    server: Namespace
    agent: NodeAgent
    clients: dict[str, Client]


def snapshot(world: RelayWorld, rooms: list[agent_pb2.RoomSpec], serial: int) -> agent_pb2.FullState:
    return agent_pb2.FullState(
        serial=serial,
        operation_id=f"full{serial}",
        interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=SERVER_PORT, addresses=["10.67.0.1/24"]),
        peers=[
            agent_pb2.PeerSpec(public_key=c.public_key, allowed_ips=[f"{c.address}/32"]) for c in world.clients.values()
        ],
        rooms=rooms,
    )


async def _clients(server: Namespace, kind: str, node_public_key: str, made: list[Namespace]) -> dict[str, Client]:
    """Clients A (10.67.0.2), B (.3) and C (.4) of the node in `server`, each a `kind` WireGuard device in a
    namespace of its own (added to `made`) with the node as its only peer (AllowedIPs 0.0.0.0/0, default route
    through the tunnel, as the downloaded configuration does)."""
    clients: dict[str, Client] = {}
    for i, label in enumerate("ABC", start=2):
        ns = Namespace(f"rl{label.lower()}")
        made.append(ns)
        veth(server, f"c{label.lower()}", f"192.168.9{i}.1/24", ns, "up0", f"192.168.9{i}.2/24")
        ifname = unique_name("wgc")
        ns.wireguard_interfaces.add(ifname)
        backend = make_backend(kind, ifname, netns=ns.name)
        private = generate_private_key()
        address = f"10.67.0.{i}"
        clients[label] = Client(ns, backend, address, public_key_of(private))
        await backend.ensure_interface(Interface(ifname, 0, frozenset({f"{address}/32"})), private)
        server_peer = Peer(
            node_public_key,
            allowed_ips=frozenset({"0.0.0.0/0"}),
            endpoint=f"192.168.9{i}.1:{SERVER_PORT}",
            persistent_keepalive=1,
        )
        await backend.apply(Changes(add_peers=[server_peer]))
        ns.run(["ip", "route", "add", "default", "dev", ifname])
    return clients


async def _tunnels_up(clients: dict[str, Client], within: float = 15) -> None:
    for client in clients.values():
        await asyncio.to_thread(
            wait_for, lambda c=client: c.ns.ping("10.67.0.1", 1, 1), within, 0.2, f"{client.ns.name} tunnel up"
        )


async def _close_clients(clients: dict[str, Client]) -> None:
    for client in clients.values():
        with contextlib.suppress(Exception):
            await client.backend.close()


@contextlib.asynccontextmanager
async def relay_world(kind: str, workdir: Path, limits: RelayLimits) -> AsyncIterator[RelayWorld]:
    """A node (NodeAgent fed directly, `kind` backend, nftables) in its namespace, and clients A (10.67.0.2),
    B (.3) and C (.4), each a WireGuard device of the same kind in its own namespace with the node as its only
    peer (AllowedIPs 0.0.0.0/0, default route through the tunnel, as the downloaded configuration does).
    A and B share room "lan"; C is in none. Tunnels are up when this yields."""
    made: list[Namespace] = []
    clients: dict[str, Client] = {}
    agent: NodeAgent | None = None
    try:
        server = Namespace("rls")
        made.append(server)
        name = unique_name("wgr")
        server.wireguard_interfaces.add(name)
        config = AgentConfig(
            control_url="unix:/nonexistent",
            node_id="n1",
            credential="c",
            backend=kind,
            interface=name,
            state_dir=workdir,
            **_limit_settings(limits),
        )
        agent = NodeAgent(
            config,
            backend=make_backend(kind, name, netns=server.name),
            firewall=Firewall(netns=server.name),
            private_key=generate_private_key(),
        )
        clients = await _clients(server, kind, agent.public_key, made)
        world = RelayWorld(server, agent, clients)
        lan = agent_pb2.RoomSpec(id="lan", members=["10.67.0.2", "10.67.0.3"])
        result = await agent.handle_full_state(snapshot(world, [lan], 1))
        assert result.result.ok, result.result.error
        await _tunnels_up(clients)
        yield world
    finally:
        if agent is not None:
            await agent.close()
        await _close_clients(clients)
        for ns in reversed(made):
            ns.delete()


def _limit_settings(limits: RelayLimits) -> dict[str, int]:
    return {
        "relay_packets_per_second": limits.packets_per_second,
        "relay_bytes_per_second": limits.bytes_per_second,
        "relay_budget_packets_per_second": limits.budget_packets_per_second,
        "relay_budget_bytes_per_second": limits.budget_bytes_per_second,
        "relay_room_share_min_packets_per_second": limits.room_share_min_packets_per_second,
        "relay_room_share_min_bytes_per_second": limits.room_share_min_bytes_per_second,
    }


@dataclass
class LobbyWorld:
    """relay_world's layout with the real agent process (`python -m node_agent`) in the node's namespace, fed by
    an in-test control plane: its discovery capture runs as on a node (NFLOG in the node's namespace), and what
    it reports arrives in `session.discovery`."""

    server: Namespace
    agent: AgentProcess
    control: FakeControlPlane
    session: Session  # the agent's current stream
    clients: dict[str, Client]
    state: agent_pb2.FullState  # what every new stream gets first

    async def restarted(self) -> None:
        """Start the (stopped or killed) agent again and wait for its snapshot's result."""
        self.agent.start()
        try:
            self.session = await self.control.next_session(60 * SLOWER)
            async with asyncio.timeout(60 * SLOWER):
                result = await self.session.results.get()
        except TimeoutError:
            raise AssertionError(
                f"the agent did not apply its snapshot; its log ends:\n{self.agent.log()[-3000:]}"
            ) from None
        assert result.ok, result.error

    def tables(self) -> list[str]:
        """`nft list tables` in the node's namespace, e.g. ["inet vpn_node", "netdev vpn_relay"]."""
        out = self.server.run(["nft", "list", "tables"]).stdout
        return [line.removeprefix("table ").strip() for line in out.splitlines() if line.startswith("table ")]


@contextlib.asynccontextmanager
async def lobby_world(
    kind: str, workdir: Path, limits: RelayLimits, extra_env: dict[str, str] | None = None
) -> AsyncIterator[LobbyWorld]:
    """The node of relay_world run by the agent process, reporting discovery every 0.5 s (`extra_env` may set
    VPN_NODE_* otherwise). A and B share room "lan"; C is in none. Tunnels are up when this yields."""
    made: list[Namespace] = []
    clients: dict[str, Client] = {}
    agent: AgentProcess | None = None
    try:
        server = Namespace("rls")
        made.append(server)
        state_dir = workdir / "agent" / "state"
        state_dir.mkdir(parents=True, mode=0o700)
        private = generate_private_key()
        (state_dir / "private.key").write_text(private + "\n")
        (state_dir / "private.key").chmod(0o600)
        clients = await _clients(server, kind, public_key_of(private), made)
        state = agent_pb2.FullState(
            serial=1,
            interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=SERVER_PORT, addresses=["10.67.0.1/24"]),
            peers=[
                agent_pb2.PeerSpec(public_key=c.public_key, allowed_ips=[f"{c.address}/32"]) for c in clients.values()
            ],
            rooms=[agent_pb2.RoomSpec(id="lan", members=["10.67.0.2", "10.67.0.3"])],
        )
        credential = "cred-" + public_key_of(generate_private_key())[:12]
        control = FakeControlPlane(lambda: agent_pb2.FullState.FromString(state.SerializeToString()), credential)
        socket_path = workdir / "control.sock"
        async with serve(control, f"unix:{socket_path}"):
            settings = {f"VPN_NODE_{k.upper()}": str(v) for k, v in _limit_settings(limits).items()}
            agent = AgentProcess(
                server,
                workdir / "agent",
                control_url=f"unix:{socket_path}",
                node_id="n1",
                credential=credential,
                interface=unique_name("wgr"),
                backend=kind,
                extra_env={**settings, "VPN_NODE_DISCOVERY_INTERVAL": "0.5", **(extra_env or {})},
            )
            world = LobbyWorld(server, agent, control, Session(agent_pb2.Hello()), clients, state)
            try:
                await world.restarted()
                await _tunnels_up(clients, 30 * SLOWER)
                yield world
            finally:
                agent.ensure_stopped()  # before the control plane goes: its stream ends from the agent's side
    finally:
        if agent is not None:
            agent.ensure_stopped()
        await _close_clients(clients)
        for ns in reversed(made):
            ns.delete()
