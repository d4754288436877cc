"""Benchmark: the rooms' discovery relay (docs/agent-protocol.md, "Discovery relay") on wireguard-go.

Run as root: `uv run python bench/relay.py [--packets 20000] [--probes 200]`. A node (real NodeAgent, nftables)
and three client namespaces are made here and removed after (tests/netns/discovery.py, the layout of the relay
tests). Two figures:

- relayed packets per second per node CPU core: client A floods broadcasts (limits lifted), the node relays each
  to B; the node's CPU is its wireguard-go process (decrypting, the relay's nftables work, which runs in that
  process's softirq context when the tun hands the packet to the kernel, and encrypting the copy). Compared with
  the same flood sent as unicast A -> B (forwarded, no relay): the ratio is what relaying costs beyond routing.
- added latency of a relayed packet: B echoes what it gets; A times a broadcast (relayed to B) and a unicast to B,
  each answered by a unicast, and the difference of the medians is the relay's.

Not a test: it prints figures (RESULT lines for bench/run_all.py), it does not fail on them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "netns"))

from common import process_cpu_seconds
from common import result as report_result
from discovery import RelayWorld, relay_world

from node_agent.relay import MAX_BYTES_PER_SECOND, MAX_PACKETS_PER_SECOND, RelayLimits

PORT = 27015

# In B: count what arrives on PORT until nothing came for a second, print the count.
_COUNT = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("0.0.0.0", int(sys.argv[1])))
print("ready", flush=True)
n = 0
s.settimeout(30)
try:
    while True:
        s.recv(2048)
        n += 1
        s.settimeout(1)
except TimeoutError:
    pass
print(n, flush=True)
"""

# In B: send back every datagram to where it came from.
_ECHO = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
print("ready", flush=True)
while True:
    data, addr = s.recvfrom(2048)
    s.sendto(data, addr)
"""

# In A: argv[3] probes to argv[1]:argv[2], each waiting for its echo; prints the RTTs in ms as JSON.
_PROBE = """
import json, socket, sys, time
dest, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.settimeout(1)
rtts = []
for i in range(count):
    tag = f"probe{i}".encode()
    started = time.perf_counter()
    s.sendto(tag, (dest, port))
    try:
        while s.recv(2048) != tag:
            pass
    except TimeoutError:
        continue
    rtts.append((time.perf_counter() - started) * 1000)
    time.sleep(0.005)
print(json.dumps(rtts))
"""

# In A: argv[3] datagrams of 100 bytes to argv[1]:argv[2], as fast as Python sends them.
_FLOOD = """
import socket, sys
dest, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
payload = b"x" * 100
for _ in range(count):
    s.sendto(payload, (dest, port))
"""


def wireguard_go_process(ifname: str) -> int:
    """The wireguard-go serving `ifname` (it forks: its socket's credentials name the parent, gone by now)."""
    wanted = b"\0".join([b"wireguard-go", ifname.encode()])
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.rstrip(b"\0").endswith(wanted) and b"wireguard-go" in cmdline.split(b"\0")[0]:
                return int(entry.name)
    raise RuntimeError(f"no wireguard-go process for {ifname}")


def flood(world: RelayWorld, dest: str, packets: int) -> tuple[int, float]:
    """(datagrams B received, CPU seconds of the node's wireguard-go) for one flood from A to `dest`."""
    a, b = world.clients["A"], world.clients["B"]
    pid = wireguard_go_process(world.agent.config.interface)
    counter = b.ns.popen([sys.executable, "-c", _COUNT, str(PORT)], stdout=-1, text=True)
    assert counter.stdout is not None and counter.stdout.readline().strip() == "ready"
    before = process_cpu_seconds(pid)
    a.ns.run([sys.executable, "-c", _FLOOD, dest, str(PORT), str(packets)], timeout=300)
    received = int(counter.stdout.readline())
    counter.wait(timeout=10)
    return received, process_cpu_seconds(pid) - before


def probe(world: RelayWorld, dest: str, probes: int) -> list[float]:
    out = world.clients["A"].ns.run([sys.executable, "-c", _PROBE, dest, str(PORT), str(probes)], timeout=300)
    return list(json.loads(out.stdout))


async def run(packets: int, probes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        # Limits lifted: this measures the relay's cost, not its limits.
        lifted = RelayLimits(MAX_PACKETS_PER_SECOND, MAX_BYTES_PER_SECOND)
        async with relay_world("userspace", Path(tmp), lifted) as world:
            b = world.clients["B"]
            relayed, relay_cpu = flood(world, "255.255.255.255", packets)
            forwarded, forward_cpu = flood(world, b.address, packets)
            relay_rate = relayed / relay_cpu if relay_cpu else float("inf")
            forward_rate = forwarded / forward_cpu if forward_cpu else float("inf")
            print(f"broadcast flood: {relayed}/{packets} relayed to B, node CPU {relay_cpu:.2f} s")
            print(f"unicast flood:   {forwarded}/{packets} forwarded to B, node CPU {forward_cpu:.2f} s")

            echo = b.ns.popen([sys.executable, "-c", _ECHO, str(PORT)], stdout=-1, text=True)
            assert echo.stdout is not None and echo.stdout.readline().strip() == "ready"
            try:
                relayed_rtt = probe(world, "255.255.255.255", probes)
                unicast_rtt = probe(world, b.address, probes)
            finally:
                echo.kill()
                echo.wait(timeout=5)
            added = statistics.median(relayed_rtt) - statistics.median(unicast_rtt)
            print(
                f"round trip, median of {len(relayed_rtt)}/{len(unicast_rtt)}: broadcast relayed "
                f"{statistics.median(relayed_rtt):.2f} ms, unicast {statistics.median(unicast_rtt):.2f} ms"
            )
    report_result(
        "rooms: relayed discovery packets per node CPU core",
        f"{relay_rate:,.0f}/s ({relay_rate / forward_rate:.2f}x unicast forwarding)",
        ">= 0.5x unicast forwarding",
        relay_rate >= 0.5 * forward_rate,
    )
    report_result(
        "rooms: latency added by the discovery relay",
        f"{added:+.2f} ms (median round trip)",
        "< 1 ms",
        added < 1.0,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--packets", type=int, default=20000)
    parser.add_argument("--probes", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args.packets, args.probes))


if __name__ == "__main__":
    main()
