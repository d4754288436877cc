"""Whether a node's agent is there: read from what its stream writes (`last_seen`, `disconnected_at`,
nodes/agent_sessions.py), so it lives beside it. The staff's server status (domain/servers/status.py) and the
customers' refusals of an offline server read it from here."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import ColumnElement, and_, or_

from controlplane.db import utcnow
from controlplane.domain.servers.models import Server

# An agent reports stats every few seconds and keepalives every 20 s: silent for longer means gone.
ONLINE_WITHIN = timedelta(seconds=45)


def is_online(server: Server) -> bool:
    """Its agent was heard from lately and its stream has not ended since (docs/operations.md, "Server status"):
    any process may hold the stream, so this reads the database."""
    if server.last_seen is None or utcnow() - server.last_seen >= ONLINE_WITHIN:
        return False
    return server.disconnected_at is None or server.disconnected_at < server.last_seen


def online_clause() -> ColumnElement[bool]:
    """`is_online` as SQL."""
    return and_(
        Server.last_seen >= utcnow() - ONLINE_WITHIN,
        or_(Server.disconnected_at.is_(None), Server.disconnected_at < Server.last_seen),
    )
