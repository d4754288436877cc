"""`GET /api/admin/audit`: the manager's Registro page, the audit log searched."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from litestar import Controller, get
from litestar.params import QueryParameter

from controlplane.dependencies import DB
from controlplane.domain.accounts.guards import admin_or_support
from controlplane.domain.audit.dependencies import AUDIT_LOG, AuditLogDep
from controlplane.domain.audit.service import AuditFilter, AuditPage
from controlplane.domain.staff_forms import Page, PageSize, Search


class AdminAuditController(Controller):
    path = "/api/admin/audit"
    tags = ["admin"]
    dependencies = AUDIT_LOG

    @get("/", operation_id="adminAuditLog", guards=[admin_or_support])
    async def audit(
        self,
        audit_log: AuditLogDep,
        db: DB,
        q: Search = "",
        action: Annotated[str, QueryParameter(max_length=48)] = "",
        actor: Annotated[str, QueryParameter(max_length=32)] = "",
        target_type: Annotated[str, QueryParameter(max_length=24)] = "",
        target_id: Annotated[str, QueryParameter(max_length=64)] = "",
        since: Annotated[datetime | None, QueryParameter()] = None,
        until: Annotated[datetime | None, QueryParameter()] = None,
        page: Page = 1,
        page_size: PageSize = 50,
    ) -> AuditPage:
        where = AuditFilter(
            q=q, action=action, actor=actor, target_type=target_type, target_id=target_id, since=since, until=until
        )
        return await audit_log.search(db, where, page, page_size)
