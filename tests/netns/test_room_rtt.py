"""Round trips to room members on real agents (docs/rooms.md, "What is measured, and the limits"): each node times
ICMP echoes to its own members' tunnel addresses and reports the median with their stats; the room's servers page
shows each member's figure, or "sin medir" (null) for a device that drops echo, and names the farthest measured
member's round trip in the recommendation's reason.

Topology: test_rooms.py's (server 1: A of Ana's, C of Caro's; server 2: B of Beto's), all three in Ana's room. A
answers echo 50 ms late: its kernel's own answers are off and a small responder in A's namespace answers each
request after 50 ms (this host's kernel has no netem to delay the link itself); C's namespace drops echo requests,
as Windows does on a network in the Public profile.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import test_rooms
from control_plane import ControlPlane
from netns import wait_for
from test_end_to_end import INTERNET
from test_rooms import RoomWorld, bring_up, join, open_room

room_world = test_rooms.room_world  # the fixture: two servers, A and C on server 1, B on server 2

# A round every 2 s (30 s in production) so the test need not wait; the budget per round is the same.
AGENT_ENV = {"VPN_NODE_RTT_INTERVAL": "2", "VPN_NODE_STATS_INTERVAL": "1"}
DELAY_MS = 50
# Answers every echo request that reaches the namespace DELAY_MS later, from the address it was sent to.
SLOW_RESPONDER = f"""
import socket, struct, threading
sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
def checksum(data):
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data + b"\\0" * (len(data) % 2)))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF
while True:
    packet, (source, _port) = sock.recvfrom(1500)
    icmp = packet[(packet[0] & 0x0F) * 4:]
    if len(icmp) < 8 or icmp[0] != 8:
        continue
    body = icmp[4:]
    reply = struct.pack("!BBH", 0, 0, checksum(b"\\0\\0\\0\\0" + body)) + body
    threading.Timer({DELAY_MS} / 1000, sock.sendto, (reply, (source, 0))).start()
"""


def test_members_round_trips_are_measured_where_the_device_answers_and_unknown_where_it_drops_ping(
    room_world: RoomWorld, tmp_path: Path
) -> None:
    world = room_world
    cp = ControlPlane(tmp_path, operation_timeout=30)
    cp.start()
    responder: subprocess.Popen[bytes] | None = None
    try:
        customers, servers = bring_up(world, cp, AGENT_ENV)
        a, b, c = (world.devices[n] for n in "ABC")
        ana = customers["ana"]
        room = open_room(ana, a)
        join(room, customers["beto"], b)
        join(room, customers["caro"], c)
        wait_for(lambda: all(s["in_sync"] for s in servers()), 20, 0.2, "servers applying the room")
        for device in (a, b, c):  # every tunnel up (its first handshake done): the node can reach the device
            wait_for(lambda d=device: d.ns.ping(INTERNET, 1, 1), 15, 0.2, f"internet from {device.ns.name}")
        a.ns.run(["sysctl", "-q", "net.ipv4.icmp_echo_ignore_all=1"])
        responder = subprocess.Popen(a.ns.argv([sys.executable, "-c", SLOW_RESPONDER]))
        c.ns.run(["nft", "add table inet rtt_drop"])
        c.ns.run(["nft", "add chain inet rtt_drop input { type filter hook input priority 0 ; }"])
        c.ns.run(["nft", "add rule inet rtt_drop input icmp type echo-request drop"])

        def page() -> dict[str, Any]:
            answer = ana.get(f"/api/client/network/partys/{room['id']}/servers")
            assert answer.status_code == 200, answer.text
            return dict(answer.json())

        def rtts() -> dict[str, int | None]:
            return {m["name"]: m["rtt_ms"] for m in page()["members"]}

        def a_delayed_and_b_measured() -> bool:
            shown = rtts()
            return (shown["dispA"] or 0) >= DELAY_MS and shown["dispB"] is not None

        wait_for(a_delayed_and_b_measured, 40, 1, "A's delayed round trip and B's reported")
        shown = rtts()
        assert DELAY_MS <= (shown["dispA"] or 0) < DELAY_MS + 100, shown  # A's 50 ms, and a busy host's slack
        assert (shown["dispB"] or 0) < 20, shown  # a link without delay
        assert shown["dispC"] is None, "C drops ping: 'sin medir'"
        # Server 1 holds two of the three members; its farthest measured member is A, and the reason says so.
        answer = page()
        assert answer["recommended"] == world.nodes["1"].server_id
        said = re.search(r"con (\d+) ms de ida y vuelta para el más lejano", answer["reason"])
        assert said is not None, answer["reason"]
        assert int(said.group(1)) >= DELAY_MS
        assert "no todos responden al ping" in answer["reason"]
    finally:
        if responder is not None:
            responder.kill()
            responder.wait()
        for node in world.nodes.values():
            if node.agent is not None:
                node.agent.ensure_stopped()
        cp.stop()
