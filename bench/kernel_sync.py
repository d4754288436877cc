"""Benchmark: agent sync on kernel WireGuard with 10 000 peers, inside the kernel test layer's VM.

Run as root: `uv run python bench/kernel_sync.py [--peers 10000]`. On the host it boots Debian's kernel with
tests/kernel/run_in_vm.py (software emulation: minutes, docs/testing-kernel.md) and runs itself inside with
`--in-vm`; there it measures, in one namespace of the VM:

- by hand: the same peers as WG_CMD_SET_DEVICE messages packed beforehand (struct, cut at 8 KiB as
  `wg setconf` cuts them), sent back to back, each acknowledged: the kernel's own work, the yardstick;
- `wg setconf` of the same peers (the C tool, parsing its file included), for comparison;
- the agent: the FullState message to its OperationResult, on an empty device (the agent in the VM's own
  namespace, as on a node);
- the same snapshot again (no-op resync): reads only, no write; beside it, the kernel's own dump of the device
  received by hand (no parsing) and `wg show <device> dump` (the C tool reading and printing it);
- reading the device back: every peer, over how many dump messages.

The no-op resync's target is in host time: the VM runs Python many times slower than the host (the reference loop
of bench/host_speed.py, timed on the host and passed in with --host-speed), and the kernel's dump alone takes
50-190 ms there (docs/benchmarks.md, "The kernel no-op resync in host time").

Devices are never deleted here: removing a peer costs the kernel an RCU grace period (seconds for thousands under
emulation); the VM powers off with them. Not a test: it prints figures, it does not fail on them.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import dataclasses
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

# Only what the VM needs is imported at the top: its root file system is uncached 9p under emulation, and
# bench/common.py pulls in the control plane (seconds of imports there).
from host_speed import python_speed  # noqa: E402

from protos import agent_pb2  # noqa: E402

WHAT = (
    "kernel agent full sync, {n} peers",
    "kernel agent sync with nothing to change, {n} peers",
    "kernel device read back, {n} peers",
)
HAND_MESSAGE_BYTES = 8192  # what `wg setconf` fits in one message (libmnl's socket buffer size)
NESTED = 0x8000  # NLA_F_NESTED


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def report_result(what: str, figure: str, target: str, met: bool | None) -> None:
    """bench/common.py's result line (RESULT|...), printed without importing it (see above)."""
    verdict = "met" if met else ("NOT met" if met is not None else "n/a")
    print(f"RESULT|{what}|{figure}|{target}|{verdict}", flush=True)


def peer_specs(count: int) -> list[agent_pb2.PeerSpec]:
    """The peers of bench/agent_sync.py: a preshared key and one /32 each."""
    return [
        agent_pb2.PeerSpec(
            public_key=base64.b64encode((1_000_000 + n + 1).to_bytes(32, "big")).decode(),
            preshared_key=base64.b64encode((1_000_000 + n + 7).to_bytes(32, "big")).decode(),
            allowed_ips=[f"10.{64 + n // 62500}.{n // 250 % 250}.{n % 250 + 2}/32"],
        )
        for n in range(count)
    ]


def full_state(peers: list[agent_pb2.PeerSpec], serial: int, port: int = 51900) -> agent_pb2.FullState:
    return agent_pb2.FullState(
        serial=serial,
        operation_id=f"op{serial}",
        interface=agent_pb2.InterfaceSpec(name="wga0", listen_port=port, addresses=["10.64.0.1/10"]),
        peers=peers,
    )


def hand_messages(peers: list[agent_pb2.PeerSpec], ifname: str, family: int) -> list[bytes]:
    """WG_CMD_SET_DEVICE messages of every peer, packed here by hand (not with the agent's wg_netlink), each at
    most HAND_MESSAGE_BYTES long, all encoded before the clock starts."""

    def attr(kind: int, payload: bytes) -> bytes:
        return struct.pack("=HH", 4 + len(payload), kind) + payload + bytes(-len(payload) % 4)

    def peer(spec: agent_pb2.PeerSpec) -> bytes:
        address, _, mask = spec.allowed_ips[0].partition("/")
        allowed = attr(1, struct.pack("=H", socket.AF_INET)) + attr(2, socket.inet_aton(address))
        allowed += attr(3, struct.pack("=B", int(mask)))
        body = attr(1, base64.b64decode(spec.public_key)) + attr(2, base64.b64decode(spec.preshared_key))
        body += attr(3, struct.pack("=I", 0)) + attr(9 | NESTED, attr(NESTED, allowed))
        return attr(NESTED, body)

    def message(entries: list[bytes], seq: int) -> bytes:
        body = attr(2, ifname.encode() + b"\0") + attr(8 | NESTED, b"".join(entries))  # IFNAME, PEERS
        header = struct.pack("=IHHIIBBH", 20 + len(body), family, 0x1 | 0x4, seq, 0, 1, 1, 0)  # REQUEST|ACK, SET
        return header + body

    entries = [peer(spec) for spec in peers]
    per_message = (HAND_MESSAGE_BYTES - 64) // len(entries[0])  # every peer here has the same shape
    return [
        message(entries[start : start + per_message], seq)
        for seq, start in enumerate(range(0, len(entries), per_message), 1)
    ]


def send_by_hand(ns_fd: int, messages: list[bytes]) -> None:
    """Send each prepared message and wait for its acknowledgement (an error raises)."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16, fileno=ns_fd)
    for message in messages:
        sock.send(message)
        answer = sock.recv(65536)
        _length, kind = struct.unpack_from("=IH", answer)
        if kind == 2:  # NLMSG_ERROR: 0 is the acknowledgement
            (code,) = struct.unpack_from("=i", answer, 16)
            if code != 0:
                raise OSError(-code, f"WG_CMD_SET_DEVICE by hand: {os.strerror(-code)}")


def dump_by_hand(family: int, ifname: str) -> float:
    """Seconds for the kernel to dump the device to a plain socket, read until NLMSG_DONE without parsing."""
    body = struct.pack("=HH", 4 + len(ifname) + 1, 2) + ifname.encode() + b"\0"  # WGDEVICE_A_IFNAME
    body += bytes(-len(body) % 4)
    request = struct.pack("=IHHIIBBH", 20 + len(body), family, 0x1 | 0x300, 1, 0, 0, 1, 0) + body  # DUMP, GET
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16) as sock:
        started = time.perf_counter()
        sock.send(request)
        done = False
        while not done:
            data = sock.recv(1 << 20)
            offset = 0
            while offset < len(data):
                length, kind = struct.unpack_from("=IH", data, offset)
                done = done or kind == 3  # NLMSG_DONE
                offset += (length + 3) & ~3
        return time.perf_counter() - started


def wg_show_dump(ifname: str) -> float:
    started = time.perf_counter()
    subprocess.run(["wg", "show", ifname, "dump"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


async def run(count: int, host_speed: float) -> None:
    from pyroute2 import AsyncIPRoute, AsyncWireGuard

    from node_agent.agent import NodeAgent
    from node_agent.backends.kernel import KernelBackend
    from node_agent.backends.link import NETLINK_GENERIC
    from node_agent.config import AgentConfig
    from node_agent.firewall import Firewall
    from node_agent.keys import generate_private_key

    peers = peer_specs(count)
    async with AsyncIPRoute() as ipr:
        for name in ("wgh0", "wgh1", "wgs0", "wga0", "wga1"):
            await ipr.link("add", ifname=name, kind="wireguard")
    async with AsyncWireGuard() as wg:
        await wg.setup_endpoint()
        family = wg.prid
        # A private key makes the kernel precompute one static-static DH per peer, as on a real node.
        for name in ("wgh0", "wgh1", "wgs0"):
            await wg.set(name, private_key=generate_private_key())

    # By hand: messages encoded beforehand, the clock runs while the kernel takes them.
    sent: list[int] = []  # messages per device

    async def by_hand(ifname: str) -> float:
        messages = hand_messages(peers, ifname, family)
        fd = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC).detach()  # send_by_hand closes it
        started = time.perf_counter()
        await asyncio.to_thread(send_by_hand, fd, messages)
        elapsed = time.perf_counter() - started
        sent.append(len(messages))
        print(f"  by hand ({ifname}): {elapsed * 1000:.0f} ms (load {loadavg()})", flush=True)
        return elapsed

    hands = [await by_hand("wgh0")]

    # wg setconf: the C tool, from a file written beforehand.
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as conf:
        conf.write(f"[Interface]\nPrivateKey = {generate_private_key()}\n")
        for spec in peers:
            conf.write(f"[Peer]\nPublicKey = {spec.public_key}\nPresharedKey = {spec.preshared_key}\n")
            conf.write(f"AllowedIPs = {spec.allowed_ips[0]}\n")
    started = time.perf_counter()
    setconf_argv = ["wg", "setconf", "wgs0", conf.name]
    await asyncio.to_thread(subprocess.run, setconf_argv, check=True)
    setconf = time.perf_counter() - started
    print(f"  wg setconf: {setconf * 1000:.0f} ms", flush=True)
    os.unlink(conf.name)

    # The agent, on an empty device: an empty snapshot first (key, port, address, firewall), then the peers.
    config = AgentConfig(
        control_url="unix:/nonexistent",
        node_id="bench",
        credential="x",
        backend="kernel",
        interface="wga0",
        egress_interface="lo",
        state_dir=Path(tempfile.mkdtemp()),
    )
    state = full_state(peers, 2)

    async def agent_sync(agent: Any, port: int = 51900) -> float:
        """The agent's full sync on an empty device: an empty snapshot first (key, port, address, firewall)."""
        first = await agent.handle_full_state(full_state([], 1, port))
        assert first.result.ok, first.result.error
        parts = _timed_parts(agent)
        started = time.perf_counter()
        answer = await agent.handle_full_state(full_state(peers, 2, port))
        elapsed = time.perf_counter() - started
        assert answer.result.ok, answer.result.error
        print(f"  agent full sync ({agent.config.interface}): {elapsed * 1000:.0f} ms (load {loadavg()})", flush=True)
        print("  of which " + ", ".join(f"{name} {ms:.0f} ms" for name, ms in parts.items()), flush=True)
        _timed_parts(agent, undo=True)
        return elapsed

    def new_agent(ifname: str) -> Any:
        return NodeAgent(
            dataclasses.replace(config, interface=ifname, state_dir=Path(tempfile.mkdtemp())),
            backend=KernelBackend(ifname),
            firewall=Firewall(),
            private_key=generate_private_key(),
        )

    agent = new_agent("wga0")
    try:
        fulls = [await agent_sync(agent)]

        writes: list[Any] = []
        real_apply = KernelBackend.apply

        async def counting_apply(self: KernelBackend, changes: Any) -> None:
            if not changes.peers_empty or changes.interface is not None:
                writes.append(changes)
            await real_apply(self, changes)

        KernelBackend.apply = counting_apply  # type: ignore[method-assign]
        noop: list[float] = []
        for _ in range(3):
            parts = _timed_parts(agent)
            started = time.perf_counter()
            answer = await agent.handle_full_state(state)
            noop.append(time.perf_counter() - started)
            _timed_parts(agent, undo=True)
            assert answer.result.ok, answer.result.error
            print(f"  no-op resync: {noop[-1] * 1000:.0f} ms", flush=True)
            print("  of which " + ", ".join(f"{name} {ms:.0f} ms" for name, ms in parts.items()), flush=True)
        KernelBackend.apply = real_apply  # type: ignore[method-assign]
        by_hand_dump = min([await asyncio.to_thread(dump_by_hand, family, "wga0") for _ in range(3)])
        wg_show = min([await asyncio.to_thread(wg_show_dump, "wga0") for _ in range(3)])
        print(f"  kernel dump by hand: {by_hand_dump * 1000:.0f} ms; wg show dump: {wg_show * 1000:.0f} ms", flush=True)

        read = await agent.backend.read_device()
    finally:
        await agent.close()
    # pyroute2's own reading of the same device: every message info() yields, peers merged by key.
    dump_messages, pyroute2_keys = 0, set()
    async with AsyncWireGuard() as wg:
        await wg.setup_endpoint()  # info() on a fresh socket needs the family bound first
        async for message in await wg.info("wga0"):
            dump_messages += 1
            pyroute2_keys.update(p.get_attr("WGPEER_A_PUBLIC_KEY") for p in message.get_attr("WGDEVICE_A_PEERS") or ())

    # A second round on fresh devices, once the first agent is done (the firewall is one table per host; its own
    # listen port): one sync in the emulated VM moves by a tenth from run to run, so the ratio is of the quicker of
    # two each. (Deleting a device of 10 000 peers first takes minutes in the emulated VM.)
    hands.append(await by_hand("wgh1"))
    second = new_agent("wga1")
    try:
        fulls.append(await agent_sync(second, port=51901))
    finally:
        await second.close()
    hand, full = min(hands), min(fulls)

    noop_s = sorted(noop)[1]
    slower = python_speed() / host_speed  # how many times slower Python runs here than on the host
    noop_host = noop_s / slower
    print(f"kernel sync benchmark, {count} peers, {os.uname().release}, software emulation (VM, {os.cpu_count()} cpus)")
    print(f"  by hand (prepared messages)  {hand * 1000:8.1f} ms   {sent[0]} messages (quicker of two)")
    print(f"  wg setconf                   {setconf * 1000:8.1f} ms")
    ratio = full / hand
    print(
        f"  agent full sync              {full * 1000:8.1f} ms   ratio {ratio:5.2f} x by hand   target <= 1.30 x"
        " (quicker of two)"
    )
    print(
        f"  no-op resync (median of 3)   {noop_s * 1000:8.1f} ms   writes {len(writes)};"
        f" {noop_host * 1000:.0f} ms in host time (Python {slower:.1f} x slower here)   target < 150 ms, 0 writes"
    )
    print(f"  kernel dump by hand          {by_hand_dump * 1000:8.1f} ms   (no parsing)")
    print(f"  wg show dump                 {wg_show * 1000:8.1f} ms   (the no-op resync {noop_s / wg_show:.2f} x)")
    print(
        f"  read back                    agent {len(read.peers)} peers;"
        f" pyroute2 {len(pyroute2_keys)} peers from {dump_messages} messages"
    )
    report_result(
        WHAT[0].format(n=count),
        f"{full / hand:.2f} x by hand ({full * 1000:.0f} vs {hand * 1000:.0f} ms; wg setconf {setconf * 1000:.0f} ms)",
        "<= 1.30 x",
        full / hand <= 1.3,
    )
    report_result(
        WHAT[1].format(n=count),
        f"{noop_host * 1000:.0f} ms in host time, {len(writes)} writes ({noop_s * 1000:.0f} ms in the VM, Python"
        f" {slower:.0f} x slower; the kernel's dump alone {by_hand_dump * 1000:.0f} ms, wg show dump"
        f" {wg_show * 1000:.0f} ms)",
        "< 150 ms of host time, 0 writes",
        noop_host < 0.15 and not writes,
    )
    report_result(
        WHAT[2].format(n=count),
        f"agent {len(read.peers)}, pyroute2 {len(pyroute2_keys)} peers from {dump_messages} messages",
        f"{count} peers",
        len(read.peers) == len(pyroute2_keys) == count,
    )


def _timed_parts(agent: Any, undo: bool = False) -> dict[str, float]:
    """Wall time of the full sync's parts (ms, summed over calls), by wrapping the agent's own methods: where the
    time beyond the kernel's goes. `undo` puts the originals back."""
    import inspect

    from node_agent import agent as agent_module
    from node_agent import made_ahead

    targets = [
        ("snapshot digest", agent_module, "snapshot_digest"),
        ("snapshot settings", agent_module, "full_state_frame"),
        ("waiting for converted peers", made_ahead.Ahead, "__anext__"),  # converted in a thread meanwhile
        ("diff", agent_module, "diff_peers"),
        ("apply (encoding and sends)", agent.backend, "apply"),
        ("kernel sends", agent.backend, "_send"),
        ("device read", agent.backend, "read_device"),
        ("of it the dump", agent.backend, "_dump"),
        ("of it parsing", agent.backend._reader, "device_state"),
        ("of it the link", agent.backend.link, "read"),
        ("interface", agent.backend, "ensure_interface"),
        ("firewall", agent.firewall, "apply"),
        ("forwarding", agent.firewall, "enable_forwarding"),
    ]
    if undo:
        for _name, owner, attr in targets:
            setattr(owner, attr, _ORIGINALS.pop((id(owner), attr)))
        return {}
    spent: dict[str, float] = {}

    def add(name: str, started: float) -> None:
        spent[name] = spent.get(name, 0.0) + (time.perf_counter() - started) * 1000

    for name, owner, attr in targets:
        original = _ORIGINALS[(id(owner), attr)] = getattr(owner, attr)
        if inspect.iscoroutinefunction(original):

            async def timed(*args: Any, _original: Any = original, _name: str = name, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await _original(*args, **kwargs)
                finally:
                    add(_name, started)

        else:

            def timed(*args: Any, _original: Any = original, _name: str = name, **kwargs: Any) -> Any:  # type: ignore[misc]
                started = time.perf_counter()
                try:
                    return _original(*args, **kwargs)
                finally:
                    add(_name, started)

        setattr(owner, attr, timed)
    return spent


_ORIGINALS: dict[tuple[int, str], Any] = {}


def in_vm(count: int, host_speed: float) -> int:
    """The measurements, in the VM's own network namespace: the agent runs there as on a node (no netns)."""
    if os.environ.get("VPN_KERNEL_VM") != "1":
        raise SystemExit("kernel_sync.py --in-vm runs inside the VM only: it leaves its devices behind")
    subprocess.run(["modprobe", "wireguard"], check=False)
    asyncio.run(run(count, host_speed))
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers", type=int, default=10_000)
    parser.add_argument("--in-vm", action="store_true", help="measure here (inside the VM); otherwise boot it")
    parser.add_argument("--host-speed", type=float, help="the host's python_speed() in seconds (with --in-vm)")
    args = parser.parse_args()
    if args.in_vm:
        if args.host_speed is None:
            parser.error("--in-vm needs --host-speed")
        sys.exit(in_vm(args.peers, args.host_speed))
    if os.geteuid() != 0:
        for what in WHAT:
            report_result(what.format(n=args.peers), "not measured: needs root (VM)", "see docs/benchmarks.md", None)
        sys.exit(1)
    host_speed = python_speed()
    print(f"host load before boot: {loadavg()}; Python speed here: {host_speed * 1000:.0f} ms", flush=True)
    command = [sys.executable, str(REPO / "tests/kernel/run_in_vm.py"), "--timeout", "1800", "--memory", "2G"]
    command += ["--", sys.executable, str(Path(__file__).resolve()), "--in-vm", "--peers", str(args.peers)]
    command += ["--host-speed", f"{host_speed:.4f}"]
    code = subprocess.run(command, cwd=REPO, check=False).returncode
    print(f"host load after: {loadavg()}", flush=True)
    if code != 0:
        for what in WHAT:
            report_result(what.format(n=args.peers), f"not measured: the VM run ended with {code}", "-", None)
    sys.exit(code)


if __name__ == "__main__":
    main()
