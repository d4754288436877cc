"""Recording staff actions and searching them."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import after_commit
from controlplane.domain.accounts.sessions import Principal
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.models import AuditEntry
from controlplane.domain.audit.schemas import AuditFilter, AuditPage, AuditView
from controlplane.realtime.hub import PushHub
from controlplane.realtime.messages import AuditPush


def view(entry: AuditEntry) -> AuditView:
    return AuditView(
        id=entry.id,
        created=entry.created,
        actor_id=entry.actor_id,
        actor_username=entry.actor_username,
        actor_role=entry.actor_role,
        action=AuditAction(entry.action),
        target_type=entry.target_type,
        target_id=entry.target_id,
        summary=entry.summary,
        ip_address=entry.ip_address,
    )


class AuditLog:
    def __init__(self, hub: PushHub) -> None:
        self._hub = hub

    async def record(
        self,
        db: AsyncSession,
        staff: Principal,
        ip: str,
        action: AuditAction,
        target_type: str,
        target_id: str | None,
        summary: str = "",
    ) -> AuditEntry:
        """Written in the same transaction as the change: a rolled-back change leaves no entry, and no change
        is committed without one. Summaries must never carry secrets (credentials, passwords, tokens)."""
        entry = AuditEntry(
            actor_id=staff.user_id,
            actor_username=staff.username,
            actor_role=str(staff.role),
            action=action,
            target_type=target_type,
            target_id=target_id,
            summary=summary[:1000],
            ip_address=ip[:64],
        )
        db.add(entry)
        await db.flush()
        pushed = AuditPush(data=view(entry))
        after_commit(db, lambda: self._hub.push_staff(pushed))
        return entry

    async def search(self, db: AsyncSession, where: AuditFilter, page: int, page_size: int) -> AuditPage:
        query = select(AuditEntry)
        if where.q.strip():
            # contains(autoescape): a typed % or _ is a character to find, not a wildcard.
            needle = where.q.strip().lower()
            query = query.where(
                or_(
                    func.lower(AuditEntry.summary).contains(needle, autoescape=True),
                    func.lower(AuditEntry.actor_username).contains(needle, autoescape=True),
                    func.lower(AuditEntry.target_id).contains(needle, autoescape=True),
                )
            )
        if where.action:
            query = query.where(AuditEntry.action == where.action)
        if where.actor:
            query = query.where(func.lower(AuditEntry.actor_username) == where.actor.strip().lower())
        if where.target_type:
            query = query.where(AuditEntry.target_type == where.target_type)
        if where.target_id:
            query = query.where(AuditEntry.target_id == where.target_id)
        if where.since:
            query = query.where(AuditEntry.created >= where.since)
        if where.until:
            query = query.where(AuditEntry.created < where.until)
        total = await db.scalar(select(func.count()).select_from(query.subquery())) or 0
        rows = await db.execute(
            query.order_by(AuditEntry.created.desc(), AuditEntry.id.desc())
            .offset((page - 1) * page_size)
            .limit(page_size)
        )
        return AuditPage(items=[view(e) for e in rows.scalars()], total=total, page=page, page_size=page_size)
