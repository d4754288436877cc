"""The manager's overview: figures from every domain (each domain's own staff shapes live beside it)."""

from __future__ import annotations

from datetime import datetime

import msgspec

from controlplane.domain.invoices.staff import RevenueRow
from controlplane.domain.usage.schemas import UsageOverview


class OperationRow(msgspec.Struct):
    id: str
    server_id: str
    server_name: str
    kind: str
    status: str
    peer_id: str | None
    error: str | None
    created: datetime
    finished: datetime | None


class Overview(msgspec.Struct):
    users: int
    customers_blocked: int
    users_new_7d: int
    peers: int
    peers_active: int
    servers: int
    servers_active: int
    servers_online: int
    operations_pending: int
    operations_failed_24h: int
    recent_operations: list[OperationRow]
    # Money is for admins only: null for support (docs/api.md, "Manager roles").
    revenue: list[RevenueRow] | None
    # Peers warned that two devices share their configuration (docs/operations.md, "One device per peer").
    peers_shared_config: int = 0
    # Traffic this month per server and in total, and per day (docs/usage.md).
    usage: UsageOverview | None = None
