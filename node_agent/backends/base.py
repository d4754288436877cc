"""The small interface every WireGuard backend implements; backends apply changes, they never decide them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from node_agent.reconcile import Changes
from node_agent.state import DeviceState, Interface, Peer


class BackendError(RuntimeError):
    """The device refused or failed an operation."""


@dataclass(frozen=True, slots=True)
class PeerStat:
    public_key: str
    latest_handshake: int  # unix seconds, 0 = never
    rx_bytes: int
    tx_bytes: int
    endpoint: str


class Backend(ABC):
    """One WireGuard interface; `netns` targets a network namespace (tests, or WireGuard kept in one)."""

    kind: ClassVar[str]

    def __init__(self, interface_name: str, netns: str | None = None) -> None:
        self.name = interface_name
        self.netns = netns

    @abstractmethod
    async def ensure_interface(
        self, interface: Interface, private_key: str, device: DeviceState | None = None
    ) -> DeviceState:
        """Create the interface if absent; set key, port, addresses and MTU where they differ; bring it up.

        Returns the device as it is afterwards (one read serves both this check and the peer diff), and
        writes nothing when everything already matches. `device` is the caller's read_device() of a moment
        ago, used instead of reading again when the interface exists.
        """

    @abstractmethod
    async def read_device(self) -> DeviceState:
        """The device as it is now: peers (with allowed IPs and preshared keys), port, addresses, MTU."""

    async def read_peers(self) -> dict[str, Peer]:
        return (await self.read_device()).peers

    @abstractmethod
    async def apply(self, changes: Changes) -> None:
        """Apply peer and interface changes (rooms and backbone are not the device's business)."""

    @abstractmethod
    async def read_stats(self) -> list[PeerStat]:
        """Per-peer latest handshake and byte counters."""

    @abstractmethod
    async def set_routes(self, networks: frozenset[str]) -> None:
        """Make exactly `networks` routed through this interface (used for backbone peers' subnets)."""

    @abstractmethod
    async def delete_interface(self) -> None:
        """Remove the interface entirely (tests and decommissioning; the agent never calls it on its own)."""

    async def close(self) -> None:  # noqa: B027 - most backends hold nothing to release
        """Release sockets. The interface stays up: clients keep their tunnel while the agent restarts."""
