"""The agent's state machine: turns FullState and Delta messages into device changes and operation results."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import ipaddress
import logging
import socket
import sys
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping

from node_agent import __version__
from node_agent.backends import Backend, BackendError, make_backend
from node_agent.backends.base import PeerStat
from node_agent.config import AgentConfig
from node_agent.discovery import nflog
from node_agent.discovery.capture import DiscoveryCapture
from node_agent.discovery.tracker import DiscoveryTracker
from node_agent.firewall import Firewall, FirewallError, FirewallPlan
from node_agent.keys import load_or_create_private_key, public_key_of
from node_agent.made_ahead import Ahead
from node_agent.reconcile import Changes, diff_peers, pruned, reconcile, reconcile_settings
from node_agent.relay import RelayLimits, discovery_destinations
from node_agent.rtt import RttProber, room_targets
from node_agent.state import (
    NO_BACKBONE,
    Backbone,
    DesiredState,
    DeviceState,
    InvalidSpec,
    Peer,
    PeerPart,
    Room,
    add_peers,
    desired_from_delta,
    full_state_frame,
    peer_parts,
    snapshot_digest,
)
from node_agent.stats import StatsReporter, split
from protos import agent_pb2

log = logging.getLogger(__name__)

# Failures of the device or firewall: answered with ok=false, then the agent resyncs from a fresh snapshot.
APPLY_ERRORS = (BackendError, FirewallError, OSError)
# A snapshot's peers are converted and applied this many at a time (handle_full_state): small enough that the device
# starts taking peers early, large enough that each write carries a few netlink messages or one long UAPI set
# (measured in the kernel VM: 250 best of 250-2 500; docs/benchmarks.md, session 9).
PEER_PART = 250
# An OperationResult's error is cut to this: the control plane takes no message over 4 MiB, and an operator reads
# the first entries anyway (16 KiB is about 200 named keys).
ERROR_MAX_CHARS = 16 << 10


class NodeAgent:
    """Holds what was applied (serial, peers, rooms, backbone) and applies each message against it.

    The peer cache is what the agent believes the device holds after its last apply: deltas diff against it
    so that one change with 10 000 peers present costs a few milliseconds instead of a full device read.
    """

    def __init__(
        self,
        config: AgentConfig,
        backend: Backend | None = None,
        firewall: Firewall | None = None,
        private_key: str | None = None,
        backbone_factory: type[Backend] | None = None,
    ) -> None:
        self.config = config
        self.private_key = private_key or load_or_create_private_key(config.state_dir)
        self.public_key = public_key_of(self.private_key)
        self.backend = backend or make_backend(config.backend, config.interface)
        self.firewall = firewall or Firewall()
        self._backbone_factory = backbone_factory
        self.backbone_backend: Backend | None = None
        self.applied_serial = 0
        self.full_state_seen = False  # per connection: deltas before a snapshot are refused
        self.resync_needed = False  # set when an apply failed half-way: the next snapshot repairs
        self._peers: dict[str, Peer] = {}
        # Guest passes' peers on the device, by key: their networks are forwarded to their rooms only (firewall.py).
        self._room_only: dict[str, frozenset[str]] = {}
        self._rooms: dict[str, Room] | None = None
        self._backbone: Backbone | None = None
        self._interface_addresses: frozenset[str] = frozenset()
        self.last_changes: Changes | None = None  # what the last message changed (logs, tests, benchmarks)
        # The last snapshot applied, by its digest, and its peers as converted: the same snapshot again (a resync
        # after a failed apply, a reconnect behind by a reverted change) is not converted again.
        self._converted: _Converted | None = None
        self._lock = asyncio.Lock()
        self._stats = StatsReporter(config.stats_full_interval)
        self.rtt = RttProber()  # round trips to room members' devices (node_agent/rtt.py)
        self.discovery = DiscoveryTracker()  # what room members announce (node_agent/discovery/)
        self._capture: DiscoveryCapture | None = None
        self._discovery_members: frozenset[str] = frozenset()
        self._discovery_rules: tuple[str, int] | None = None  # what nft was last given, for which interface index

    @property
    def relay_limits(self) -> RelayLimits:
        return RelayLimits(
            int(self.config.relay_packets_per_second),
            int(self.config.relay_bytes_per_second),
            int(self.config.relay_budget_packets_per_second),
            int(self.config.relay_budget_bytes_per_second),
            int(self.config.relay_room_share_min_packets_per_second),
            int(self.config.relay_room_share_min_bytes_per_second),
        )

    @property
    def peer_count(self) -> int:
        return len(self._peers)

    # --- messages -----------------------------------------------------------------------------------------

    def hello(self) -> agent_pb2.AgentMessage:
        return agent_pb2.AgentMessage(
            hello=agent_pb2.Hello(
                node_id=self.config.node_id,
                credential=self.config.credential,
                agent_version=__version__,
                backend=self.config.backend,
                applied_serial=self.applied_serial,
                public_key=self.public_key,
                resume=True,  # this agent understands InSync (no snapshot when applied_serial is current)
            )
        )

    def connection_started(self) -> None:
        """A new stream: nothing may be pruned or changed by delta until its snapshot has arrived."""
        self.full_state_seen = False
        self.resync_needed = False
        self._stats.stream_started()

    def _result(self, operation_id: str, serial: int, error: str = "") -> agent_pb2.AgentMessage:
        if len(error) > ERROR_MAX_CHARS:  # "skipped invalid entries" may name thousands of keys
            error = error[:ERROR_MAX_CHARS] + f"... ({len(error) - ERROR_MAX_CHARS} more characters)"
        return agent_pb2.AgentMessage(
            result=agent_pb2.OperationResult(operation_id=operation_id, serial=serial, ok=not error, error=error)
        )

    async def handle_full_state(self, msg: agent_pb2.FullState) -> agent_pb2.AgentMessage:
        async with self._lock, _tuned_for_a_snapshot():
            started = time.perf_counter()
            reading = asyncio.ensure_future(self._read_device_if_any())
            digest: list[bytes] = []  # the snapshot's, filled in by the converting thread
            parts = Ahead(self._converted_peers(msg, digest), name="snapshot")
            try:
                try:
                    desired = await asyncio.to_thread(full_state_frame, msg)
                except InvalidSpec as exc:
                    await reading
                    log.error("full state %s refused: %s", msg.serial, exc)
                    return self._result(msg.operation_id, msg.serial, f"invalid full state: {exc}")
                except BaseException:
                    reading.cancel()
                    raise
                frame_invalid = len(desired.invalid)
                try:
                    changes = await self._apply_full(desired, parts, await reading)
                except APPLY_ERRORS as exc:
                    log.error("full state %s failed: %s", msg.serial, exc)
                    self._device_unknown()
                    return self._result(msg.operation_id, msg.serial, f"apply failed: {exc}")
            finally:
                parts.stop()
            converted = PeerPart(desired.peers, desired.invalid[frame_invalid:], set(desired.keep_peers))
            self._converted = _Converted(digest[0], len(msg.peers), converted)
            self.applied_serial = msg.serial
            self.full_state_seen = True
            log.info(
                "full state %s applied in %.0f ms: +%d ~%d -%d peers (%d total)%s",
                msg.serial,
                (time.perf_counter() - started) * 1000,
                len(changes.add_peers),
                len(changes.update_peers),
                len(changes.remove_peers),
                len(self._peers),
                ", rooms rewritten" if changes.rooms is not None else "",
            )
            if desired.invalid:
                # The valid rest is applied; the control plane learns which entries it must fix.
                log.warning("full state %s skipped: %s", msg.serial, "; ".join(desired.invalid))
                return self._result(
                    msg.operation_id, msg.serial, "skipped invalid entries: " + "; ".join(desired.invalid)
                )
            return self._result(msg.operation_id, msg.serial)

    def _converted_peers(self, msg: agent_pb2.FullState, digest: list[bytes]) -> Iterator[PeerPart]:
        """A snapshot's peers, converted part by part in a thread of their own (Ahead) from the moment it arrives,
        while the device is read (with 50 000 peers wireguard-go spends a few hundred ms writing its answer, on the
        other core: docs/benchmarks.md, "50 000 peers") and while the first parts are applied (_apply_full).

        The snapshot applied last is not converted again: its conversion comes as one part. Its digest is taken
        first only when the snapshot names as many peers as the last one; otherwise after the last part, while the
        device takes the last writes. Either way it ends in `digest`, for the next snapshot to compare with."""
        last = self._converted
        if last is not None and last.count == len(msg.peers):
            digest.append(snapshot_digest(msg))
            if digest[0] == last.digest:
                yield last.peers
                return
        yield from peer_parts(msg.peers, PEER_PART)
        if not digest:
            digest.append(snapshot_digest(msg))

    def _device_unknown(self) -> None:
        """An apply failed half-way: the device may differ from every serial, so the next stream must bring a
        snapshot. Reporting serial 0 in the next Hello guarantees it (a current serial would get InSync)."""
        self.resync_needed = True
        self.applied_serial = 0

    def handle_in_sync(self, msg: agent_pb2.InSync) -> bool:
        """The control plane says the serial this agent reported is current: it stands for this stream's
        snapshot. False when it names another serial (never expected): the caller reconnects for a snapshot."""
        if msg.serial != self.applied_serial or self.applied_serial == 0:
            log.error(
                "in sync at serial %s, but this agent applied %s: asking for a full state",
                msg.serial,
                self.applied_serial,
            )
            self._device_unknown()
            return False
        self.full_state_seen = True
        log.info("in sync at serial %s: no full state needed", msg.serial)
        return True

    async def handle_delta(self, msg: agent_pb2.Delta) -> agent_pb2.AgentMessage:
        async with self._lock:
            if not self.full_state_seen:
                return self._result(msg.operation_id, msg.serial, "full state required before deltas")
            if msg.serial <= self.applied_serial:
                # Already covered by a snapshot or an earlier delta: nothing to do, and nothing to wait for.
                log.debug("delta %s ignored (applied serial %s)", msg.serial, self.applied_serial)
                return self._result(msg.operation_id, msg.serial)
            try:
                desired = desired_from_delta(msg)
            except InvalidSpec as exc:
                log.error("delta %s refused: %s", msg.serial, exc)
                return self._result(msg.operation_id, msg.serial, f"invalid delta: {exc}")
            try:
                changes = await self._apply_delta(desired)
            except APPLY_ERRORS as exc:
                log.error("delta %s failed: %s", msg.serial, exc)
                self._device_unknown()
                return self._result(msg.operation_id, msg.serial, f"apply failed: {exc}")
            self.applied_serial = msg.serial
            log.info(
                "delta %s applied: +%d ~%d -%d peers%s",
                msg.serial,
                len(changes.add_peers),
                len(changes.update_peers),
                len(changes.remove_peers),
                ", rooms rewritten" if changes.rooms is not None else "",
            )
            return self._result(msg.operation_id, msg.serial)

    async def read_stats(self) -> list[PeerStat] | None:
        """Every peer's live figures, or None before there is a device to read (a fresh node)."""
        if not self.full_state_seen and not self._peers:
            return None  # the interface may not exist yet on a fresh node
        return await self.backend.read_stats()

    def stats_report(self, stats: list[PeerStat]) -> list[agent_pb2.AgentMessage]:
        """The report of what changed since the previous one on this stream, in parts when it is large
        (node_agent/stats.py): the messages to send, in this order."""
        report = self._stats.report(self.applied_serial, stats, self.rtt.figures())
        return [agent_pb2.AgentMessage(stats=part) for part in split(report)]

    # --- applying -----------------------------------------------------------------------------------------

    async def _read_device_if_any(self) -> DeviceState | None:
        """The device as it is, or None when there is none to read yet (ensure_interface then makes it)."""
        try:
            return await self.backend.read_device()
        except APPLY_ERRORS as exc:
            log.debug("device not read before the snapshot: %s", exc)
            return None

    async def _apply_full(self, desired: DesiredState, parts: Ahead[PeerPart], device: DeviceState | None) -> Changes:
        """Apply a snapshot: its settings (interface, rooms, backbone) in `desired`, its peers as `parts` come.

        Each part's additions and updates go to the device as soon as it is converted, so the device takes the first
        peers while the rest are converted; the removals go last, once every key of the snapshot is known. Adding
        before removing is safe when an address passes from a removed peer to an added one: the device gives an
        address to the peer it was set on last, and removing the old peer then leaves it where it is."""
        assert desired.interface is not None
        if desired.interface.name != self.config.interface:
            # The local name wins: it is a local concern (and userspace socket names must be unique per host).
            log.debug(
                "control plane names the interface %r, using %r",
                desired.interface.name,
                self.config.interface,
            )
        desired.interface = dataclasses.replace(desired.interface, name=self.config.interface)
        actual = await self.backend.ensure_interface(desired.interface, self.private_key, device)
        changes = reconcile_settings(desired, actual, self._rooms, self._backbone)
        self.last_changes = changes  # its peers are filled in as they go
        interface = changes.interface  # sent with the first write
        # A part's write starts before the previous one has ended and is taken after it (the kernel backend's
        # socket lock, wireguard-go's own), so the device is never idle while this loop diffs and encodes the next
        # part. Parts name disjoint keys, so their order does not matter; at most one write waits; the removals go
        # once every write is done.
        writes: list[asyncio.Future[None]] = []
        try:
            async for part in parts:
                add_peers(desired, part)
                add, update, _ = diff_peers(part.peers, actual.peers, prune=False)
                changes.add_peers += add
                changes.update_peers += update
                if add or update or interface is not None:
                    write = Changes(add_peers=add, update_peers=update, interface=interface)
                    writes.append(asyncio.ensure_future(self.backend.apply(write)))
                    interface = None
                    if len(writes) > 1:
                        await writes.pop(0)
            for write_in_flight in writes:
                await write_in_flight
        finally:
            await _stopped(writes)  # after a failure: the write still going is not left behind
        changes.remove_peers = sorted(pruned(desired.peers, actual.peers, keep=desired.keep_peers))
        if changes.remove_peers or interface is not None:
            await self.backend.apply(Changes(remove_peers=changes.remove_peers, interface=interface))
        kept = {k: actual.peers[k] for k in desired.keep_peers if k in actual.peers}
        self._peers = {**kept, **desired.peers}
        self._room_only = room_only_peers(desired.peers, self._room_only, kept)
        self._interface_addresses = desired.interface.addresses
        await self.firewall.enable_forwarding(ipv6=any(":" in a for a in self._interface_addresses))
        await self._apply_rooms_and_backbone(changes, check_devices=True)
        return changes

    async def _apply_delta(self, desired: DesiredState) -> Changes:
        changes = reconcile(desired, DeviceState(peers=self._peers), self._rooms, self._backbone)
        self.last_changes = changes
        await self.backend.apply(changes)
        for key in changes.remove_peers:
            self._peers.pop(key, None)
        for peer in (*changes.add_peers, *changes.update_peers):
            self._peers[peer.public_key] = peer
        # From the message, not from `changes`: a peer that becomes (or stops being) a guest is no device change.
        for key in desired.remove_peers:
            if key not in desired.peers:  # upserted and removed in one message: the upsert wins (reconcile.py)
                self._room_only.pop(key, None)
        for key, peer in desired.peers.items():
            if peer.room_only:
                self._room_only[key] = peer.allowed_ips
            else:
                self._room_only.pop(key, None)
        await self._apply_rooms_and_backbone(changes)
        return changes

    async def _apply_rooms_and_backbone(self, changes: Changes, check_devices: bool = False) -> None:
        if changes.backbone is not None:
            await self._apply_backbone(changes.backbone)
            self._backbone = changes.backbone
        rooms = changes.rooms if changes.rooms is not None else self._rooms or {}
        # Room isolation and the discovery relay are one ruleset: a membership change moves both in one nft
        # transaction, acknowledged by this operation's result (docs/agent-protocol.md, "Discovery relay").
        await self.firewall.apply(self._firewall_plan(rooms), check_devices=check_devices)
        self._rooms = rooms
        await self._watch_discovery(rooms)

    def _backbone_name(self, backbone: Backbone) -> str:
        return self.config.backbone_interface or backbone.interface.name

    def _firewall_plan(self, rooms: dict[str, Room]) -> FirewallPlan:
        local = frozenset(str(ipaddress.ip_interface(a).network) for a in self._interface_addresses)
        backbone = self._backbone or NO_BACKBONE
        remote = frozenset(n for peer in backbone.peers for n in peer.allowed_ips)
        tunnels = [self.config.interface]
        if backbone.enabled:
            tunnels.append(self._backbone_name(backbone))
        return FirewallPlan(
            tunnel_interfaces=tuple(tunnels),
            client_networks=local | remote,
            local_networks=local,
            egress_interface=self.config.egress_interface,
            rooms=dict(rooms),
            relay_limits=self.relay_limits,
            room_only=frozenset(n for networks in self._room_only.values() for n in networks),
        )

    async def _apply_backbone(self, backbone: Backbone) -> None:
        if not backbone.enabled:
            if self.backbone_backend is not None:
                await self.backbone_backend.delete_interface()
                await self.backbone_backend.close()
                self.backbone_backend = None
            return
        name = self._backbone_name(backbone)
        if self.backbone_backend is None or self.backbone_backend.name != name:
            if self._backbone_factory is not None:
                self.backbone_backend = self._backbone_factory(name, self.backend.netns)
            else:
                self.backbone_backend = make_backend(self.config.backend, name, self.backend.netns)
        peers = {p.public_key: await _resolved(p) for p in backbone.peers}
        interface = dataclasses.replace(backbone.interface, name=name)
        actual = await self.backbone_backend.ensure_interface(interface, self.private_key)
        changes = reconcile(DesiredState(serial=0, full=True, peers=peers, interface=interface), actual, {}, None)
        # Endpoints of backbone peers are ours to set (unlike roaming clients): refresh them on every change.
        changes.update_peers = [p for k, p in peers.items() if k in actual.peers]
        await self.backbone_backend.apply(changes)
        await self.backbone_backend.set_routes(frozenset(n for p in peers.values() for n in p.allowed_ips))

    async def _watch_discovery(self, rooms: dict[str, Room]) -> None:
        """The lobby hears room members on this node (docs/agent-protocol.md, "Discovery report"): their discovery
        packets are logged to NFLOG by a chain of our own, rewritten when the members or the interface change, and
        read by the capture thread, started with the first room. Best effort: a failure here never fails the
        room change (the relay is applied already). An agent driving another namespace (tests) does not capture.

        With recognition off the table is deleted all the same (once): one left by an earlier run that had it on,
        or by a crash, would otherwise keep logging to a group nobody reads. A table a crash left behind is simply
        replaced by the first write of the next run (the ruleset creates, deletes and recreates it)."""
        local = [ipaddress.ip_interface(a).network for a in self._interface_addresses]
        members = {m for room in rooms.values() for m in room.members if ":" not in m}
        self._discovery_members = frozenset(m for m in members if any(ipaddress.ip_address(m) in n for n in local))
        self.discovery.forget_except(self._discovery_members)
        if getattr(self.backend, "netns", None) is not None:
            return
        recognizing = self.config.discovery_interval > 0
        try:
            index = socket.if_nametoindex(self.config.interface)
        except OSError:
            index = 0
        destinations = discovery_destinations(str(n) for n in local)
        logged = self._discovery_members if recognizing else frozenset()
        rules = nflog.render_rules(self.config.interface, logged, destinations)
        if (rules, index) != self._discovery_rules:
            try:
                await nflog.apply_rules(rules)
                self._discovery_rules = (rules, index)
            except OSError as exc:
                log.warning("the rooms' lobby cannot hear this node's members: %s", exc)
        if self._capture is None and recognizing and self._discovery_members:
            self._capture = DiscoveryCapture(
                self.config.interface, self.discovery, lambda: self._discovery_members, self._subnet_broadcasts
            )
            self._capture.start()

    def _subnet_broadcasts(self) -> frozenset[str]:
        networks = [ipaddress.ip_interface(a).network for a in self._interface_addresses]
        return frozenset(str(n.broadcast_address) for n in networks if n.version == 4 and n.prefixlen < 31)

    async def measure_round_trips(self) -> None:
        """One round of echoes to the room members on this node (node_agent/rtt.py); their figures go out with the
        next stats report. An agent driving another namespace (tests) would probe from the wrong one: it does not."""
        if getattr(self.backend, "netns", None) is not None:
            return
        await self.rtt.round(room_targets(self._peers, self._rooms or {}))

    def discovery_report(self) -> agent_pb2.AgentMessage | None:
        report = self.discovery.report()
        return agent_pb2.AgentMessage(discovery=report) if report is not None else None

    async def close(self) -> None:
        """A clean stop. The tunnels, room rules and relay stay (clients keep being served while the agent restarts
        or is upgraded); the discovery table goes, because it only feeds this process's capture: left behind it
        would log room members' packets to a group nobody reads, and name members of rooms that may be gone."""
        if self._discovery_rules is not None:
            try:
                await asyncio.wait_for(nflog.apply_rules(nflog.render_rules(self.config.interface, (), ())), 10)
                self._discovery_rules = None
            except (OSError, TimeoutError) as exc:
                log.warning("the discovery table stays behind (the next start replaces it): %s", exc)
        if self._capture is not None:
            await asyncio.to_thread(self._capture.stop)
            self._capture = None
        await self.backend.close()
        if self.backbone_backend is not None:
            await self.backbone_backend.close()


@dataclasses.dataclass(frozen=True, slots=True)
class _Converted:
    """A snapshot applied: its digest (state.snapshot_digest), how many peer entries it had, and its peers as
    converted (the valid ones, the invalid entries' errors, the keys kept)."""

    digest: bytes
    count: int
    peers: PeerPart


@contextlib.asynccontextmanager
async def _tuned_for_a_snapshot() -> AsyncIterator[None]:
    """The process set up for a snapshot, then put back.

    - The cyclic collector is off: a snapshot allocates ~10 objects per peer and frees nothing meanwhile, so the
      collector would rescan the growing heap many times for no gain (measured: up to half of a 10 000-peer no-op
      resync).
    - Threads hand the GIL over every 0.5 ms instead of 5: the thread sending to the kernel needs it for a moment
      after each message, while the threads converting and encoding peers hold it (the kernel backend's full sync
      of 10 000 peers in the VM went from 1.47 to 1.32 x the same messages sent by hand, one run each;
      docs/testing-kernel.md)."""
    was_enabled = gc.isenabled()
    gc.disable()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        if was_enabled:
            gc.enable()


async def _stopped(tasks: list[asyncio.Future[None]]) -> None:
    """Cancel what is still running and wait for it; a failure of its own was already someone else's to report."""
    running = [task for task in tasks if not task.done()]
    for task in running:
        task.cancel()
    if running:
        await asyncio.wait(running)
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: no "never retrieved" warning for what the caller already raised


async def _resolved(peer: Peer) -> Peer:
    """WireGuard endpoints must be IP:port; a backbone endpoint given as a host name is resolved here."""
    if not peer.endpoint:
        return peer
    host, _, port = peer.endpoint.rpartition(":")
    host = host.strip("[]")
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, int(port), type=socket.SOCK_DGRAM)
    except (OSError, ValueError) as exc:
        raise BackendError(f"cannot resolve backbone endpoint {peer.endpoint!r}: {exc}") from exc
    address = str(infos[0][4][0])
    endpoint = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    return dataclasses.replace(peer, endpoint=endpoint)


def room_only_peers(
    desired: Mapping[str, Peer], applied: Mapping[str, frozenset[str]], kept: Iterable[str]
) -> dict[str, frozenset[str]]:
    """After a snapshot: the guest peers it names, by key, with their networks. A peer kept on the device because
    its entry was invalid keeps the restriction it had (fail closed: never freed by a message that was not applied)."""
    room_only = {key: peer.allowed_ips for key, peer in desired.items() if peer.room_only}
    room_only.update((key, applied[key]) for key in kept if key in applied)
    return room_only
