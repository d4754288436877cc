"""Agents connected to this process, and the wake-up that sends them new operations."""

from __future__ import annotations

import asyncio
import logging

from controlplane.realtime.topics import NodeChanged

log = logging.getLogger(__name__)


class AgentLink:
    """One connected agent: the serial sent last, and an event set when its node has news."""

    def __init__(self, server_id: str) -> None:
        self.server_id = server_id
        self.sent_serial = 0
        self.wake = asyncio.Event()
        self.closed = asyncio.Event()

    def close(self) -> None:
        self.closed.set()
        self.wake.set()


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

    async def on_node_changed(self, event: NodeChanged) -> None:
        """News for a node: wake its stream, or end it when its credential was revoked (whichever process has it)."""
        link = self._links.get(event.server_id)
        if link is None:
            return
        if event.revoked:
            link.close()
        else:
            link.wake.set()
