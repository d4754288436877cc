"""What staff see of the audit log, and how they search it."""

from __future__ import annotations

from datetime import datetime

import msgspec

from controlplane.domain.audit.actions import AuditAction


class AuditView(msgspec.Struct):
    id: str
    created: datetime
    actor_id: str
    actor_username: str
    actor_role: str
    action: AuditAction  # shown by its Spanish label (webui/src/features/manager/audit-actions.ts)
    target_type: str
    target_id: str | None
    summary: str
    ip_address: str


class AuditPage(msgspec.Struct):
    items: list[AuditView]
    total: int
    page: int
    page_size: int


class AuditFilter(msgspec.Struct, forbid_unknown_fields=True):
    q: str = ""  # free text over summary, actor and target id
    action: str = ""
    actor: str = ""  # username
    target_type: str = ""
    target_id: str = ""
    since: datetime | None = None
    until: datetime | None = None
