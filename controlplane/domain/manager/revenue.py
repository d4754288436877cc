"""Revenue by period and gateway, from paid invoices (empty until the payments domain provides invoices)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.manager import schemas


async def revenue_rows(db: AsyncSession, period: str) -> list[schemas.RevenueRow]:
    return []
