"""Agents connected to this process, and the wake-up that sends them new operations."""

from __future__ import annotations

import asyncio
import logging

from controlplane.realtime.topics import NodeChanged
from protos import agent_pb2

log = logging.getLogger(__name__)


class AgentLink:
    """One connected agent: the serial sent last, what is known to be queued after it, and an event set when its
    node has news.

    Deltas queued by this process arrive built (`ready`, nodes/send_ahead.py) and are sent without reading the
    database; anything else (another process's change, a change committed while a snapshot was read) is read from
    the database (`must_read`, or a known serial beyond the ones at hand)."""

    def __init__(self, server_id: str) -> None:
        self.server_id = server_id
        self.sent_serial = 0
        self.known_serial = 0  # the highest serial this stream has heard of
        self.must_read = False
        self.ready: dict[int, agent_pb2.Delta] = {}
        self.wake = asyncio.Event()
        self.closed = asyncio.Event()

    def close(self) -> None:
        self.closed.set()
        self.wake.set()

    def read_database(self) -> None:
        """Operations may have been committed that this stream has not heard of: read them at the next wake."""
        self.must_read = True
        self.wake.set()

    def heard_of(self, serial: int) -> None:
        if serial > self.known_serial:
            self.known_serial = serial
        if serial > self.sent_serial:
            self.wake.set()

    def take_ready(self) -> list[agent_pb2.Delta]:
        """The built deltas that follow the serial sent last, without a gap; older ones are dropped."""
        taken = []
        serial = self.sent_serial
        while (delta := self.ready.pop(serial + 1, None)) is not None:
            taken.append(delta)
            serial = delta.serial
        return taken

    def needs_read(self) -> bool:
        """After the ready deltas are sent: does the database hold operations this stream has not sent?"""
        for serial in [s for s in self.ready if s <= self.sent_serial]:
            del self.ready[serial]
        needed = self.must_read or self.known_serial > self.sent_serial
        self.must_read = False
        return needed


class AgentRegistry:
    def __init__(self) -> None:
        self._links: dict[str, AgentLink] = {}

    def __len__(self) -> int:
        return len(self._links)

    def connected_ids(self) -> set[str]:
        return set(self._links)

    def connected(self, server_id: str) -> bool:
        return server_id in self._links

    def add(self, link: AgentLink) -> None:
        """A node has one stream; a newer connection replaces (and ends) the older one."""
        previous = self._links.get(link.server_id)
        if previous is not None:
            log.info("node %s reconnected; closing its previous stream", link.server_id)
            previous.close()
        self._links[link.server_id] = link

    def close_all(self) -> None:
        """End every stream (shutdown): each handler leaves its loop and does its end-of-stream bookkeeping."""
        for link in list(self._links.values()):
            link.close()

    def remove(self, link: AgentLink) -> None:
        if self._links.get(link.server_id) is link:
            del self._links[link.server_id]

    def ahead(self, server_id: str, delta: agent_pb2.Delta) -> None:
        """A delta this process queued and built (nodes/send_ahead.py), for its node's stream if it is still here."""
        link = self._links.get(server_id)
        if link is None:
            return
        link.ready[delta.serial] = delta
        link.heard_of(delta.serial)

    async def on_node_changed(self, event: NodeChanged) -> None:
        """News for a node: wake its stream, or end it when its credential was revoked (whichever process has it).

        An event naming a serial this stream already has at hand (queued here, sent ahead) changes nothing."""
        link = self._links.get(event.server_id)
        if link is None:
            return
        if event.revoked:
            link.close()
        elif event.serial:
            link.heard_of(event.serial)
        else:
            link.read_database()
