"""The real agent in a server namespace, driven by an in-test control plane; clients use standard wg-quick.

Topology (all namespaces made here): client(s) --veth--> server (agent + wireguard-go + nftables) --veth-->
internet. The internet namespace has no route back to the tunnel subnet, so a reply only arrives through NAT.
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from agent_fake_control import FakeControlPlane, Session, serve
from agent_process import AgentProcess
from netns import Namespace, unique_name, veth, wait_for, wg_quick_down, wg_quick_up

from node_agent.keys import generate_private_key, public_key_of
from protos import agent_pb2

CREDENTIAL = "node-credential-" + base64.b16encode(os.urandom(8)).decode()
INTERNET = "10.200.0.2"
LISTEN_PORT = 51820


@dataclass
class Client:
    ns: Namespace
    private_key: str
    psk: str
    address: str  # tunnel address
    underlay: str  # server address as seen from this client

    @property
    def public_key(self) -> str:
        return public_key_of(self.private_key)

    def spec(self) -> agent_pb2.PeerSpec:
        return agent_pb2.PeerSpec(public_key=self.public_key, preshared_key=self.psk, allowed_ips=[self.address])

    def config(self, server_public_key: str) -> str:
        # What the control plane hands a customer: a standard wg-quick file, DNS line included.
        return (
            f"[Interface]\nPrivateKey = {self.private_key}\nAddress = {self.address}/32\nDNS = 1.1.1.1\n\n"
            f"[Peer]\nPublicKey = {server_public_key}\nPresharedKey = {self.psk}\n"
            f"Endpoint = {self.underlay}:{LISTEN_PORT}\nAllowedIPs = 0.0.0.0/0\nPersistentKeepalive = 25\n"
        )


@dataclass
class Topology:
    server: Namespace
    internet: Namespace
    clients: list[Client]
    workdir: Path
    wg_interface: str


def new_client(ns: Namespace, n: int) -> Client:
    return Client(
        ns,
        generate_private_key(),
        base64.b64encode(os.urandom(32)).decode(),
        f"10.8.0.{n + 1}",
        f"10.201.{n}.1",
    )


@pytest.fixture
def topology(tmp_path: Path) -> Iterator[Topology]:
    made: list[Namespace] = []
    try:
        server, internet = Namespace("srv"), Namespace("inet")
        made += [server, internet]
        veth(server, "egr0", "10.200.0.1/24", internet, "up0", f"{INTERNET}/24")
        clients = []
        for n in (1, 2):
            ns = Namespace(f"cli{n}")
            made.append(ns)
            veth(server, f"ul{n}", f"10.201.{n}.1/24", ns, f"ul{n}", f"10.201.{n}.2/24")
            clients.append(new_client(ns, n))
        wg_interface = unique_name("wgs")
        server.wireguard_interfaces.add(wg_interface)
        yield Topology(server, internet, clients, tmp_path, wg_interface)
    finally:
        for ns in reversed(made):
            ns.delete()


def server_state(
    topo: Topology,
    peers: list[agent_pb2.PeerSpec],
    serial: int = 1,
    rooms: list[agent_pb2.RoomSpec] | None = None,
) -> agent_pb2.FullState:
    return agent_pb2.FullState(
        serial=serial,
        interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=LISTEN_PORT, addresses=["10.8.0.1/24"]),
        peers=peers,
        rooms=rooms or [],
    )


async def athread(fn, *args):  # type: ignore[no-untyped-def]
    """Blocking helpers run off the loop: the in-test gRPC server shares it."""
    return await asyncio.to_thread(fn, *args)


async def eventually_pings(ns: Namespace, address: str, within: float = 15) -> None:
    await athread(lambda: wait_for(lambda: ns.ping(address, 1, 1), within, 0.2, f"ping {address} from {ns.name}"))


async def never_pings(ns: Namespace, address: str) -> None:
    assert not await athread(lambda: ns.ping(address, 3, 1)), f"{ns.name} unexpectedly reached {address}"


def device_peers(topo: Topology) -> set[str]:
    out = topo.server.run(["wg", "show", topo.wg_interface, "peers"], check=False).stdout
    return set(out.split())


@pytest.fixture
async def control(
    topo_state: list[agent_pb2.FullState], topology: Topology
) -> AsyncIterator[tuple[FakeControlPlane, str]]:
    control = FakeControlPlane(
        lambda: agent_pb2.FullState().__class__.FromString(topo_state[0].SerializeToString()), CREDENTIAL
    )
    target = f"unix:{topology.workdir / 'control.sock'}"
    async with serve(control, target):
        yield control, target


@pytest.fixture
def topo_state() -> list[agent_pb2.FullState]:
    """The FullState the fake control plane serves on every connection; tests replace element 0."""
    return [agent_pb2.FullState()]


@pytest.fixture
def agent(topology: Topology, control: tuple[FakeControlPlane, str]) -> Iterator[AgentProcess]:
    proc = AgentProcess(
        topology.server,
        topology.workdir,
        control_url=control[1],
        node_id="node-test",
        credential=CREDENTIAL,
        interface=topology.wg_interface,
        egress_interface="egr0",
    )
    yield proc
    if proc.proc is not None and proc.proc.poll() is None:
        proc.proc.kill()
        proc.proc.wait()


async def test_client_reaches_internet_through_nat_and_key_swap_moves_access(
    topology: Topology,
    control: tuple[FakeControlPlane, str],
    agent: AgentProcess,
    topo_state: list[agent_pb2.FullState],
) -> None:
    cp, _ = control
    old = topology.clients[0]
    topo_state[0] = server_state(topology, [old.spec()])
    agent.start()
    session: Session = await cp.next_session()
    assert (await session.result("op-1")).ok

    # Hello: who we are, with the node key that the device really uses; never the private key.
    assert session.hello.node_id == "node-test" and session.hello.credential == CREDENTIAL
    assert session.hello.backend == "userspace" and session.hello.applied_serial == 0
    device_key = topology.server.run(["wg", "show", topology.wg_interface, "public-key"]).stdout.strip()
    assert session.hello.public_key == device_key
    private_key = (topology.workdir / "state" / "private.key").read_text().strip()
    assert oct((topology.workdir / "state" / "private.key").stat().st_mode & 0o777) == "0o600"

    old_conf = await athread(wg_quick_up, old.ns, old.config(device_key), unique_name("wgc"), topology.workdir)
    await eventually_pings(old.ns, INTERNET)
    # The internet side has no route to the tunnel subnet: the reply came back only thanks to masquerade.
    assert topology.internet.run(["ip", "route", "get", old.address], check=False).returncode != 0

    # Stats reach the control plane with the handshake and byte counters of that client.
    async def handshake_reported() -> agent_pb2.PeerStats:
        while True:
            for report in reversed(session.stats):
                for peer in report.peers:
                    if peer.public_key == old.public_key and peer.latest_handshake > 0 and peer.rx_bytes > 0:
                        return peer
            await asyncio.sleep(0.2)

    async with asyncio.timeout(10):
        stats = await handshake_reported()
    assert stats.tx_bytes > 0 and stats.endpoint.startswith("10.201.1.2:")

    # Regenerate: the old key goes, the new key takes the same address.
    new = Client(old.ns, generate_private_key(), base64.b64encode(os.urandom(32)).decode(), old.address, old.underlay)
    session.send_delta(
        agent_pb2.Delta(operation_id="swap", serial=2, remove_peers=[old.public_key], upsert_peers=[new.spec()])
    )
    result = await session.result("swap")
    assert result.ok and result.serial == 2
    assert await athread(device_peers, topology) == {new.public_key}
    await never_pings(old.ns, INTERNET)
    await athread(wg_quick_down, old.ns, old_conf)
    await athread(wg_quick_up, new.ns, new.config(device_key), unique_name("wgc"), topology.workdir)
    await eventually_pings(new.ns, INTERNET)

    # A replayed (older) delta is answered ok and changes nothing.
    session.send_delta(agent_pb2.Delta(operation_id="stale", serial=2, remove_peers=[new.public_key]))
    assert (await session.result("stale")).ok
    assert await athread(device_peers, topology) == {new.public_key}

    assert agent.stop() == 0
    # Beside the scan after every test (key-shaped strings), the exact keys this test handed out, by name.
    agent.assert_log_holds_no_secrets(CREDENTIAL, old.psk, new.psk, private_key, old.private_key, new.private_key)


async def test_rooms_let_members_reach_each_other_and_nobody_else(
    topology: Topology,
    control: tuple[FakeControlPlane, str],
    agent: AgentProcess,
    topo_state: list[agent_pb2.FullState],
) -> None:
    cp, _ = control
    a, b = topology.clients
    topo_state[0] = server_state(topology, [a.spec(), b.spec()])
    agent.start()
    session = await cp.next_session()
    assert (await session.result("op-1")).ok
    key = topology.server.run(["wg", "show", topology.wg_interface, "public-key"]).stdout.strip()
    for client in (a, b):
        await athread(wg_quick_up, client.ns, client.config(key), unique_name("wgc"), topology.workdir)
        await eventually_pings(client.ns, INTERNET)

    await never_pings(a.ns, b.address)  # default: clients do not see each other

    room = agent_pb2.RoomSpec(id="room-1", members=[a.address, b.address])
    session.send_delta(agent_pb2.Delta(operation_id="join", serial=2, upsert_rooms=[room]))
    assert (await session.result("join")).ok
    await eventually_pings(a.ns, b.address)
    await eventually_pings(b.ns, a.address)

    session.send_delta(agent_pb2.Delta(operation_id="leave", serial=3, remove_rooms=["room-1"]))
    assert (await session.result("leave")).ok
    await never_pings(a.ns, b.address)
    await eventually_pings(a.ns, INTERNET)  # the internet stays reachable


async def test_agent_killed_mid_sync_converges_after_restart_without_losing_clients(
    topology: Topology,
    control: tuple[FakeControlPlane, str],
    agent: AgentProcess,
    topo_state: list[agent_pb2.FullState],
) -> None:
    cp, _ = control
    client = topology.clients[0]

    def fillers(first: int, count: int) -> list[agent_pb2.PeerSpec]:
        return [
            agent_pb2.PeerSpec(
                public_key=base64.b64encode((n + 1).to_bytes(32, "big")).decode(),
                preshared_key=base64.b64encode((n + 7).to_bytes(32, "big")).decode(),
                allowed_ips=[f"10.{9 + n // 60000}.{n // 250 % 240}.{n % 250 + 1}/32"],
            )
            for n in range(first, first + count)
        ]

    # A first large snapshot tells how long a 2000-peer sync takes on this machine.
    topo_state[0] = server_state(topology, [client.spec(), *fillers(0, 2000)], serial=1)
    agent.start()
    session = await cp.next_session()
    started = asyncio.get_running_loop().time()
    assert (await session.result("op-1")).ok
    sync_time = asyncio.get_running_loop().time() - started
    key = topology.server.run(["wg", "show", topology.wg_interface, "public-key"]).stdout.strip()
    await athread(wg_quick_up, client.ns, client.config(key), unique_name("wgc"), topology.workdir)
    await eventually_pings(client.ns, INTERNET)

    # The next snapshot swaps all 2000 peers; the agent is SIGKILLed part-way through applying it. The UAPI
    # transaction is atomic to readers, so the kill time is tried at a few fractions of the measured sync
    # until the device is caught half-written (or the tries run out: convergence is checked either way).
    states = [{client.public_key, *(p.public_key for p in fillers(0, 2000))}]
    caught_half_written = False
    for attempt, fraction in enumerate((0.5, 0.35, 0.65, 0.25, 0.8)):
        first = 10_000 * (attempt + 1)
        topo_state[0] = server_state(topology, [client.spec(), *fillers(first, 2000)], serial=2 + attempt)
        states.append({client.public_key, *(p.public_key for p in fillers(first, 2000))})
        if agent.proc is not None and agent.proc.poll() is None:
            agent.stop()
        agent.start()
        session = await cp.next_session()
        await asyncio.sleep(sync_time * fraction)
        agent.kill()
        if not session.results.empty():
            continue  # finished before the kill: try earlier next time
        on_device = await athread(device_peers, topology)
        if on_device != states[-1] and on_device != states[-2]:
            caught_half_written = True
            break
    # The tunnel does not depend on the agent process: wireguard-go keeps serving while it is gone.
    await eventually_pings(client.ns, INTERNET)

    # Meanwhile the desired state moved on again. A restarted agent converges exactly, losing nothing.
    final = [client.spec(), *fillers(first + 100, 1900), *fillers(100_000, 100)]
    topo_state[0] = server_state(topology, final, serial=10)
    agent.start()
    session = await cp.next_session()
    result = await session.result(f"op-{len(cp.all_sessions)}")
    assert result.ok and result.serial == 10
    assert await athread(device_peers, topology) == {p.public_key for p in final}
    await eventually_pings(client.ns, INTERNET)
    print(f"sync of 2000 peers: {sync_time * 1000:.0f} ms; device caught half-written: {caught_half_written}")
