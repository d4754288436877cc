"""The manager's overview (`GET /api/admin/overview`: figures from every domain). Every other admin endpoint lives
beside its domain (listed in controlplane/app.py).

Who may call each admin route is a guard on it (domain/accounts/guards.py); every write records an audit entry in
its request's transaction (domain/audit/trail.py).
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import QueryParameter

from controlplane.dependencies import DB, Staff
from controlplane.domain.accounts.guards import admin_or_support
from controlplane.domain.accounts.models import Role
from controlplane.domain.invoices.staff import revenue_rows
from controlplane.domain.manager import schemas
from controlplane.domain.manager.overview import overview
from controlplane.domain.servers.dependencies import CONNECTED_IDS, ConnectedIds


class AdminOverviewController(Controller):
    path = "/api/admin"
    tags = ["admin"]
    dependencies = CONNECTED_IDS

    @get("/overview", operation_id="adminOverview", guards=[admin_or_support])
    async def read(
        self,
        connected_ids: ConnectedIds,
        db: DB,
        staff: Staff,
        period: Annotated[str, QueryParameter(pattern="^(day|month)$")] = "month",
    ) -> schemas.Overview:
        money = await revenue_rows(db, period) if staff.role is Role.ADMIN else None
        return await overview(db, money, connected_ids())
