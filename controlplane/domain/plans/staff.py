"""Plans as admins edit them: the catalogue customers buy from (the public list: plans/service.py)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.plans import staff_schemas as schemas
from controlplane.domain.plans.models import Plan
from controlplane.domain.staff_forms import changes_of, required_text
from controlplane.errors import Invalid, NotFound

MAX_PRICE = Decimal("99999999.99")
# A guest pass is a seat for a night or a weekend, not a way to sell ordinary time without the plan's rules.
GUEST_PASS_MAX_HOURS = 24 * 7
GUEST_PASS_TOO_LONG = f"Un pase de invitado dura como máximo {GUEST_PASS_MAX_HOURS} horas (7 días)."


def check_guest_pass_hours(guest_pass: bool, hours: int) -> None:
    if guest_pass and hours > GUEST_PASS_MAX_HOURS:
        raise Invalid(GUEST_PASS_TOO_LONG, code="guest_pass_too_long", fields={"validity_hours": GUEST_PASS_TOO_LONG})


def parse_price(text: str) -> Decimal:
    """USD with at most two decimals, more than zero ("5", "5.5", "5.00")."""
    try:
        price = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        price = Decimal("NaN")
    if not price.is_finite() or price <= 0 or price > MAX_PRICE or price.as_tuple().exponent < -2:  # type: ignore[operator]
        raise Invalid(
            "El precio debe ser un número mayor que cero con hasta dos decimales.",
            code="invalid_price",
            fields={"price": "Precio inválido."},
        )
    return price.quantize(Decimal("0.01"))


def plan_view(plan: Plan) -> schemas.StaffPlan:
    return schemas.StaffPlan(
        id=plan.id,
        name=plan.name,
        description=plan.description,
        validity_hours=plan.validity_hours,
        price=f"{plan.price:.2f}",
        visible=plan.visible,
        sort_order=plan.sort_order,
        created=plan.created,
        guest_pass=plan.guest_pass,
    )


async def all_plans(db: AsyncSession) -> list[schemas.StaffPlan]:
    rows = await db.execute(select(Plan).order_by(Plan.sort_order, Plan.price, Plan.name))
    return [plan_view(p) for p in rows.scalars()]


async def get_plan(db: AsyncSession, plan_id: str) -> Plan:
    plan = await db.get(Plan, plan_id)
    if plan is None:
        raise NotFound("Plan no encontrado.", code="plan_not_found")
    return plan


async def create_plan(db: AsyncSession, data: schemas.PlanInput) -> Plan:
    check_guest_pass_hours(data.guest_pass, data.validity_hours)
    plan = Plan(
        name=required_text(data.name, "name", "El nombre"),
        description=data.description.strip(),
        validity_hours=data.validity_hours,
        price=parse_price(data.price),
        visible=data.visible,
        sort_order=data.sort_order,
        guest_pass=data.guest_pass,
    )
    db.add(plan)
    await db.flush()
    return plan


async def update_plan(db: AsyncSession, plan_id: str, patch: schemas.PlanPatch) -> tuple[Plan, dict[str, Any]]:
    """Price and validity changes apply to later purchases; plans_history keeps what each customer paid."""
    plan = await get_plan(db, plan_id)
    changes = changes_of(patch)
    if "name" in changes:
        changes["name"] = required_text(changes["name"], "name", "El nombre")
    if "price" in changes:
        changes["price"] = parse_price(changes["price"])
    if "description" in changes:
        changes["description"] = changes["description"].strip()
    check_guest_pass_hours(
        changes.get("guest_pass", plan.guest_pass), changes.get("validity_hours", plan.validity_hours)
    )
    for key, value in changes.items():
        setattr(plan, key, value)
    await db.flush()
    return plan, changes
