"""The plan catalogue customers see (admin editing comes with the manager pages)."""

from __future__ import annotations

from decimal import Decimal

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.plans.models import Plan


class PlanView(msgspec.Struct):
    id: str
    name: str
    description: str
    validity: str  # 'days HH:MM:SS', as the web client expects
    price: str  # USD, two decimals


def validity_text(hours: int) -> str:
    days, rest = divmod(hours, 24)
    return f"{days} {rest:02d}:00:00"


def view(plan: Plan) -> PlanView:
    return PlanView(
        id=plan.id,
        name=plan.name,
        description=plan.description,
        validity=validity_text(plan.validity_hours),
        price=f"{plan.price:.2f}",
    )


async def visible_plans(db: AsyncSession) -> list[PlanView]:
    rows = await db.execute(
        select(Plan)
        .where(Plan.visible.is_(True), Plan.guest_pass.is_(False))  # passes are bought from a room's page
        .order_by(Plan.sort_order, Plan.price)
    )
    return [view(p) for p in rows.scalars()]


async def add_plan(
    db: AsyncSession, name: str, validity_hours: int, price: Decimal, description: str = "", sort_order: int = 0
) -> Plan:
    plan = Plan(name=name, validity_hours=validity_hours, price=price, description=description, sort_order=sort_order)
    db.add(plan)
    await db.flush()
    return plan
