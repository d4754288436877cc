"""Pure diff of desired state against actual device state: what to add, update and remove, nothing else."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from node_agent.state import Backbone, DesiredState, DeviceState, Interface, Peer, Room


@dataclass(frozen=True, slots=True)
class InterfaceChange:
    """Interface settings that differ; None / empty means leave as is."""

    listen_port: int | None = None
    add_addresses: frozenset[str] = frozenset()
    remove_addresses: frozenset[str] = frozenset()
    mtu: int | None = None

    @property
    def empty(self) -> bool:
        return self.listen_port is None and not self.add_addresses and not self.remove_addresses and self.mtu is None


@dataclass(slots=True)
class Changes:
    """Everything one apply step must do; `rooms`/`backbone` are None when unchanged, else the new value."""

    add_peers: list[Peer] = field(default_factory=list)
    update_peers: list[Peer] = field(default_factory=list)
    remove_peers: list[str] = field(default_factory=list)
    interface: InterfaceChange | None = None
    rooms: dict[str, Room] | None = None
    backbone: Backbone | None = None

    @property
    def peers_empty(self) -> bool:
        return not (self.add_peers or self.update_peers or self.remove_peers)

    @property
    def empty(self) -> bool:
        return self.peers_empty and self.interface is None and self.rooms is None and self.backbone is None


def peer_differs(desired: Peer, actual: Peer) -> bool:
    """Only what the control plane owns counts: a client's endpoint roams and is never compared."""
    return desired.preshared_key != actual.preshared_key or desired.allowed_ips != actual.allowed_ips


def diff_peers(
    desired: Mapping[str, Peer],
    actual: Mapping[str, Peer],
    *,
    prune: bool,
    remove: frozenset[str] = frozenset(),
    keep: frozenset[str] = frozenset(),
) -> tuple[list[Peer], list[Peer], list[str]]:
    """(to add, to update, to remove). Without `prune` only the explicit `remove` keys go; `keep` stays."""
    add: list[Peer] = []
    update: list[Peer] = []
    for key, peer in desired.items():
        current = actual.get(key)
        if current is None:
            add.append(peer)
        elif current is not peer and peer_differs(peer, current):  # the same object: read back as written
            update.append(peer)
    # A key both upserted and removed in one message ends up present: the upsert is the later intent.
    removals = [key for key in remove if key in actual and key not in desired]
    if prune:
        removals.extend(pruned(desired, actual, keep=keep | remove))
    removals.sort()
    return add, update, removals


def pruned(desired: Mapping[str, Peer], actual: Mapping[str, Peer], *, keep: frozenset[str]) -> list[str]:
    """The keys a snapshot drops: on the device, not in `desired`, not kept."""
    return [key for key in actual if key not in desired and key not in keep]


def diff_interface(desired: Interface, actual: DeviceState) -> InterfaceChange | None:
    change = InterfaceChange(
        listen_port=desired.listen_port if desired.listen_port and desired.listen_port != actual.listen_port else None,
        add_addresses=desired.addresses - actual.addresses,
        remove_addresses=actual.addresses - desired.addresses,
        mtu=desired.mtu if desired.mtu and desired.mtu != actual.mtu else None,
    )
    return None if change.empty else change


def merged_rooms(desired: DesiredState, applied: Mapping[str, Room] | None) -> dict[str, Room]:
    """The complete room set after this message: a snapshot replaces, a delta upserts and removes."""
    if desired.full:
        return dict(desired.rooms)
    rooms = {rid: room for rid, room in (applied or {}).items() if rid not in desired.remove_rooms}
    rooms.update(desired.rooms)
    return rooms


def reconcile(
    desired: DesiredState,
    actual: DeviceState,
    applied_rooms: Mapping[str, Room] | None = None,
    applied_backbone: Backbone | None = None,
) -> Changes:
    """Diff `desired` against `actual`. Prunes only when `desired.full`; the same state twice changes nothing.

    `applied_rooms` / `applied_backbone` are what the agent last applied (None = nothing yet, so the first
    snapshot always (re)writes the firewall and backbone: both are idempotent).
    """
    changes = reconcile_settings(desired, actual, applied_rooms, applied_backbone)
    changes.add_peers, changes.update_peers, changes.remove_peers = diff_peers(
        desired.peers, actual.peers, prune=desired.full, remove=desired.remove_peers, keep=desired.keep_peers
    )
    return changes


def reconcile_settings(
    desired: DesiredState,
    actual: DeviceState,
    applied_rooms: Mapping[str, Room] | None = None,
    applied_backbone: Backbone | None = None,
) -> Changes:
    """`reconcile` without the peers: the interface, the rooms and the backbone (a snapshot's peers are diffed part
    by part as they are converted: agent.py)."""
    changes = Changes()
    if desired.interface is not None:
        changes.interface = diff_interface(desired.interface, actual)

    rooms = merged_rooms(desired, applied_rooms)
    if applied_rooms is None or rooms != dict(applied_rooms):
        changes.rooms = rooms

    if desired.backbone is not None and desired.backbone != applied_backbone:
        changes.backbone = desired.backbone
    return changes
