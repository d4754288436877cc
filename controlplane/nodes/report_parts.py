"""A stats report the agent split into parts to stay under the port's message limit, joined again
(docs/agent-protocol.md, "Stats").

Every part carries the report's serial, totals and `complete`; all but the last say `continued`. The parts are
joined before anything is stored, so a split report is handled exactly as one message would be: one transaction,
one bus event, and a complete report still replaces what the control plane keeps per peer (the endpoint watch),
rather than each part pruning the peers of the others."""

from __future__ import annotations

import logging

from protos import agent_pb2

log = logging.getLogger(__name__)

# A report of more than this is dropped (its parts are not kept): the largest message the port took before the
# split, about 700 000 peers.
MAX_REPORT_BYTES = 64 << 20


class ReportParts:
    """The parts received so far of one stream's current report."""

    def __init__(self, server_id: str, max_bytes: int = MAX_REPORT_BYTES) -> None:
        self._server_id = server_id
        self._max_bytes = max_bytes
        self._joined: agent_pb2.StatsReport | None = None
        self._bytes = 0
        self._overflowed = False

    def add(self, part: agent_pb2.StatsReport) -> agent_pb2.StatsReport | None:
        """The whole report once its last part is in (a report sent whole is returned as it is), else None."""
        if self._joined is None and not self._overflowed and not part.continued:
            return part
        self._bytes += part.ByteSize()
        if not self._overflowed and self._bytes > self._max_bytes:
            log.warning("node %s sent a stats report over %d bytes: dropped", self._server_id, self._max_bytes)
            self._overflowed, self._joined = True, None
        if not self._overflowed:
            if self._joined is None:
                self._joined = agent_pb2.StatsReport()
            self._joined.peers.extend(part.peers)
        if part.continued:
            return None
        joined = self._joined
        self._joined, self._bytes, self._overflowed = None, 0, False
        if joined is None:  # dropped: over the bound
            return None
        # The last part's serial, totals and `complete` stand for the report (every part carries the same).
        joined.serial = part.serial
        joined.complete = part.complete
        if part.HasField("totals"):
            joined.totals.CopyFrom(part.totals)
        return joined
