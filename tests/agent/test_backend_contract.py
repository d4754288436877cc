"""What every WireGuard backend must do, on a real device (wireguard-go here, kernel in the VM)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import ipaddress
import time

from netns import Namespace, unique_name, veth, wait_for

from node_agent.backends import Backend, make_backend
from node_agent.keys import generate_private_key, public_key_of
from node_agent.reconcile import Changes, reconcile
from node_agent.state import DesiredState, Interface, Peer


def key(n: int) -> str:
    # Any 32 bytes make a valid public key for WireGuard's bookkeeping.
    return base64.b64encode((n + 1).to_bytes(32, "big")).decode()


def client_ip(n: int) -> str:
    return str(ipaddress.ip_address("10.64.0.2") + n) + "/32"


def peers(count: int, psk: bool = False) -> list[Peer]:
    return [Peer(key(n), key(10**6 + n) if psk else "", frozenset({client_ip(n)})) for n in range(count)]


def iface(backend: Backend, port: int = 51820, mtu: int = 1380) -> Interface:
    return Interface(backend.name, port, frozenset({"10.64.0.1/16", "fd64::1/64"}), mtu)


async def test_interface_is_created_configured_and_up(backend: Backend, namespace: Namespace) -> None:
    private = generate_private_key()
    await backend.ensure_interface(iface(backend), private)
    await backend.ensure_interface(iface(backend), private)  # idempotent
    device = await backend.read_device()
    assert device.listen_port == 51820
    assert device.addresses == {"10.64.0.1/16", "fd64::1/64"}
    assert device.mtu == 1380
    assert device.peers == {}
    show = namespace.run(["ip", "-o", "link", "show", backend.name]).stdout
    assert "UP" in show.split("<")[1].split(">")[0]
    assert namespace.run(["wg", "show", backend.name, "public-key"]).stdout.strip() == public_key_of(private)


async def test_interface_settings_follow_a_new_spec(backend: Backend) -> None:
    private = generate_private_key()
    await backend.ensure_interface(iface(backend), private)
    changed = Interface(backend.name, 51999, frozenset({"10.65.0.1/16"}), 1300)
    await backend.ensure_interface(changed, private)
    device = await backend.read_device()
    assert (device.listen_port, device.addresses, device.mtu) == (51999, {"10.65.0.1/16"}, 1300)


async def test_added_peers_read_back_exactly(backend: Backend, namespace: Namespace) -> None:
    await backend.ensure_interface(iface(backend), generate_private_key())
    wanted = [
        Peer(key(1), "", frozenset({"10.64.0.2/32"})),
        Peer(key(2), key(99), frozenset({"10.64.0.3/32", "fd64::3/128"})),
    ]
    await backend.apply(Changes(add_peers=wanted))
    assert await backend.read_peers() == {p.public_key: p for p in wanted}
    # An operator's `wg show` agrees.
    dump = namespace.run(["wg", "show", backend.name, "allowed-ips"]).stdout
    assert f"{key(2)}\t" in dump and "fd64::3/128" in dump


async def test_update_replaces_allowed_ips_and_preshared_key(backend: Backend) -> None:
    await backend.ensure_interface(iface(backend), generate_private_key())
    await backend.apply(Changes(add_peers=[Peer(key(1), key(50), frozenset({"10.64.0.2/32"}))]))
    moved = Peer(key(1), "", frozenset({"10.64.0.9/32"}))
    await backend.apply(Changes(update_peers=[moved]))
    assert await backend.read_peers() == {key(1): moved}


async def test_removed_peers_are_gone_and_others_stay(backend: Backend) -> None:
    await backend.ensure_interface(iface(backend), generate_private_key())
    await backend.apply(Changes(add_peers=peers(5)))
    await backend.apply(Changes(remove_peers=[key(0), key(3)]))
    assert set(await backend.read_peers()) == {key(1), key(2), key(4)}


async def test_large_set_is_complete_and_resync_is_a_noop(backend: Backend) -> None:
    # Past a few dozen peers the kernel splits its answer over several messages: all must be read.
    await backend.ensure_interface(iface(backend), generate_private_key())
    wanted = {p.public_key: p for p in peers(1500, psk=True)}
    desired = DesiredState(serial=1, full=True, peers=wanted)
    await backend.apply(reconcile(desired, await backend.read_device()))
    actual = await backend.read_device()
    assert actual.peers == wanted
    assert reconcile(desired, actual).peers_empty


async def test_a_change_made_by_hand_shows_on_the_next_read(backend: Backend, namespace: Namespace) -> None:
    """A read remembers what it found (the kernel backend finds an unchanged peer entry in one lookup:
    wg_netlink.DeviceReader); whatever an operator changes with `wg set` between two reads must still show."""
    await backend.ensure_interface(iface(backend), generate_private_key())
    wanted = {p.public_key: p for p in peers(6, psk=True)}
    await backend.apply(Changes(add_peers=list(wanted.values())))
    assert await backend.read_peers() == wanted
    assert await backend.read_peers() == wanted  # read again: the same peers

    def wg_set(*args: str, stdin: str | None = None) -> None:
        namespace.run(["wg", "set", backend.name, *args], input=stdin)

    wg_set("peer", key(0), "preshared-key", "/dev/stdin", stdin=key(77) + "\n")
    wg_set("peer", key(1), "allowed-ips", "10.64.9.9/32,fd64::9/128")
    wg_set("peer", key(2), "persistent-keepalive", "25")
    wg_set("peer", key(3), "endpoint", "127.0.0.1:9")  # nothing is sent: no traffic, no keepalive
    wg_set("peer", key(4), "remove")
    expected = dict(wanted)
    expected[key(0)] = dataclasses.replace(wanted[key(0)], preshared_key=key(77))
    expected[key(1)] = dataclasses.replace(wanted[key(1)], allowed_ips=frozenset({"10.64.9.9/32", "fd64::9/128"}))
    expected[key(2)] = dataclasses.replace(wanted[key(2)], persistent_keepalive=25)
    expected[key(3)] = dataclasses.replace(wanted[key(3)], endpoint="127.0.0.1:9")
    del expected[key(4)]
    assert await backend.read_peers() == expected


async def test_peer_with_many_allowed_ips_reads_back_whole(backend: Backend) -> None:
    await backend.ensure_interface(iface(backend), generate_private_key())
    networks = frozenset(f"10.70.{n // 256}.{n % 256}/32" for n in range(400))
    await backend.apply(Changes(add_peers=[Peer(key(7), "", networks)]))
    assert (await backend.read_peers())[key(7)].allowed_ips == networks


async def test_stats_list_every_peer(backend: Backend) -> None:
    await backend.ensure_interface(iface(backend), generate_private_key())
    await backend.apply(Changes(add_peers=peers(3)))
    stats = {s.public_key: s for s in await backend.read_stats()}
    assert set(stats) == {key(0), key(1), key(2)}
    assert all(s.latest_handshake == 0 and s.rx_bytes == 0 for s in stats.values())


async def test_routes_follow_the_given_networks(backend: Backend, namespace: Namespace) -> None:
    await backend.ensure_interface(iface(backend), generate_private_key())
    await backend.set_routes(frozenset({"10.90.0.0/24", "10.91.0.0/24"}))
    await backend.set_routes(frozenset({"10.91.0.0/24", "fd91::/64"}))
    v4 = namespace.run(["ip", "route", "show", "dev", backend.name]).stdout
    v6 = namespace.run(["ip", "-6", "route", "show", "dev", backend.name]).stdout
    assert "10.91.0.0/24" in v4 and "10.90.0.0/24" not in v4
    assert "fd91::/64" in v6


async def test_two_backends_complete_a_handshake_and_count_bytes(
    backend: Backend, backend_kind: str, namespace: Namespace
) -> None:
    with Namespace("bk2") as other_ns:
        veth(namespace, "ve0", "192.168.77.1/24", other_ns, "ve1", "192.168.77.2/24")
        other = make_backend(backend_kind, unique_name("wgt"), netns=other_ns.name)
        other_ns.wireguard_interfaces.add(other.name)
        a_key, b_key = generate_private_key(), generate_private_key()
        psk = key(4242)
        await backend.ensure_interface(Interface(backend.name, 51820, frozenset({"10.80.0.1/24"})), a_key)
        await other.ensure_interface(Interface(other.name, 51821, frozenset({"10.80.0.2/24"})), b_key)
        b_peer = Peer(public_key_of(b_key), psk, frozenset({"10.80.0.2/32"}), "192.168.77.2:51821")
        a_peer = Peer(public_key_of(a_key), psk, frozenset({"10.80.0.1/32"}), "192.168.77.1:51820")
        await backend.apply(Changes(add_peers=[b_peer]))
        await other.apply(Changes(add_peers=[a_peer]))
        assert await asyncio.to_thread(lambda: wait_for(lambda: namespace.ping("10.80.0.2"), 10, 0.2, "ping"))
        stats = {s.public_key: s for s in await backend.read_stats()}
        peer_stats = stats[public_key_of(b_key)]
        assert abs(peer_stats.latest_handshake - time.time()) < 60
        assert peer_stats.rx_bytes > 0 and peer_stats.tx_bytes > 0
        assert peer_stats.endpoint == "192.168.77.2:51821"
        await other.delete_interface()
        await other.close()
