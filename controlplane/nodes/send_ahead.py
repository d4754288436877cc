"""Sending a change ahead: the delta built in the transaction that queues it, for an agent whose stream this
process holds (docs/agent-protocol.md, "Deltas: built ahead or read back").

Without it, the stream hears of the change after the commit and reads it back in a transaction of its own (the
pending operations after the serial it sent, then their peers). Built before the commit, in the queuing
transaction, the delta costs one statement there and goes out as soon as the commit is done. A change queued by
another process, or one whose delta could not be built, still reaches the agent the other way."""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox
from controlplane.db import after_commit, before_commit
from controlplane.nodes.desired_state import delta_message
from controlplane.nodes.models import NodeOperation
from controlplane.nodes.registry import AgentRegistry
from protos import agent_pb2

log = logging.getLogger(__name__)


class SendAhead:
    def __init__(self, box: SecretBox, agents: AgentRegistry) -> None:
        self._box = box
        self._agents = agents

    def queue(self, db: AsyncSession, operation: NodeOperation) -> None:
        """Build `operation`'s delta just before `db` commits and hand it to the node's stream once committed."""
        server_id = operation.server_id
        if not self._agents.connected(server_id):
            return
        built: list[agent_pb2.Delta] = []

        async def build() -> None:
            # After the caller's last change: the delta shows what this serial stands for, as a read after the
            # commit would. A delta that cannot be built (a key that does not decrypt) must not fail the caller's
            # change: the stream then reads it back and fails there as it always did.
            try:
                built.append(await delta_message(db, self._box, operation))
            except Exception:
                log.exception("building the delta of operation %s ahead failed", operation.id)

        async def hand_over() -> None:
            for delta in built:
                self._agents.ahead(server_id, delta)

        before_commit(db, build)
        after_commit(db, hand_over)
