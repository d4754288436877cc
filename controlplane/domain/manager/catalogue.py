"""What admins publish: plans, announcements on the customer home, releases of the client app."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.domain.manager import schemas
from controlplane.domain.plans.models import Plan
from controlplane.errors import Invalid, NotFound

MAX_PRICE = Decimal("99999999.99")
VERSION_RE = re.compile(r"^\d{1,5}(\.\d{1,5}){0,3}$")
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


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


def _required(value: str, field: str, label: str) -> str:
    value = value.strip()
    if not value:
        raise Invalid(f"{label} es obligatorio.", code="required", fields={field: "Campo obligatorio."})
    return value


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
    )


def announcement_view(a: Announcement) -> schemas.StaffAnnouncement:
    return schemas.StaffAnnouncement(id=a.id, name=a.name, message=a.message, visible=a.visible, created=a.created)


def release_view(r: ClientRelease) -> schemas.StaffRelease:
    return schemas.StaffRelease(id=r.id, version=r.version, url=r.url, created=r.created)


def _changes(patch: msgspec.Struct) -> dict[str, Any]:
    return {k: v for k, v in msgspec.structs.asdict(patch).items() if v is not None}


# --- plans -------------------------------------------------------------------------------------------------


async def all_plans(db: AsyncSession) -> list[schemas.StaffPlan]:
    rows = await db.execute(select(Plan).order_by(Plan.sort_order, Plan.price, Plan.name))
    return [plan_view(p) for p in rows.scalars()]


async def get_plan(db: AsyncSession, plan_id: str) -> Plan:
    plan = await db.get(Plan, plan_id)
    if plan is None:
        raise NotFound("Plan no encontrado.", code="plan_not_found")
    return plan


async def create_plan(db: AsyncSession, data: schemas.PlanInput) -> Plan:
    plan = Plan(
        name=_required(data.name, "name", "El nombre"),
        description=data.description.strip(),
        validity_hours=data.validity_hours,
        price=parse_price(data.price),
        visible=data.visible,
        sort_order=data.sort_order,
    )
    db.add(plan)
    await db.flush()
    return plan


async def update_plan(db: AsyncSession, plan_id: str, patch: schemas.PlanPatch) -> tuple[Plan, dict[str, Any]]:
    """Price and validity changes apply to later purchases; plans_history keeps what each customer paid."""
    plan = await get_plan(db, plan_id)
    changes = _changes(patch)
    if "name" in changes:
        changes["name"] = _required(changes["name"], "name", "El nombre")
    if "price" in changes:
        changes["price"] = parse_price(changes["price"])
    if "description" in changes:
        changes["description"] = changes["description"].strip()
    for key, value in changes.items():
        setattr(plan, key, value)
    await db.flush()
    return plan, changes


# --- announcements -----------------------------------------------------------------------------------------


async def all_announcements(db: AsyncSession) -> list[schemas.StaffAnnouncement]:
    rows = await db.execute(select(Announcement).order_by(Announcement.created.desc()))
    return [announcement_view(a) for a in rows.scalars()]


async def get_announcement(db: AsyncSession, announcement_id: str) -> Announcement:
    announcement = await db.get(Announcement, announcement_id)
    if announcement is None:
        raise NotFound("Anuncio no encontrado.", code="announcement_not_found")
    return announcement


async def create_announcement(db: AsyncSession, data: schemas.AnnouncementInput) -> Announcement:
    announcement = Announcement(
        name=_required(data.name, "name", "El título"),
        message=_required(data.message, "message", "El mensaje"),
        visible=data.visible,
    )
    db.add(announcement)
    await db.flush()
    return announcement


async def update_announcement(
    db: AsyncSession, announcement_id: str, patch: schemas.AnnouncementPatch
) -> tuple[Announcement, dict[str, Any]]:
    announcement = await get_announcement(db, announcement_id)
    changes = _changes(patch)
    if "name" in changes:
        changes["name"] = _required(changes["name"], "name", "El título")
    if "message" in changes:
        changes["message"] = _required(changes["message"], "message", "El mensaje")
    for key, value in changes.items():
        setattr(announcement, key, value)
    await db.flush()
    return announcement, changes


async def delete_announcement(db: AsyncSession, announcement_id: str) -> Announcement:
    announcement = await get_announcement(db, announcement_id)
    await db.delete(announcement)
    await db.flush()
    return announcement


# --- client releases ---------------------------------------------------------------------------------------


async def all_releases(db: AsyncSession) -> list[schemas.StaffRelease]:
    rows = await db.execute(select(ClientRelease).order_by(ClientRelease.created.desc()))
    return [release_view(r) for r in rows.scalars()]


async def create_release(db: AsyncSession, data: schemas.ReleaseInput) -> ClientRelease:
    version, url = data.version.strip(), data.url.strip()
    if not VERSION_RE.match(version):
        raise Invalid(
            "La versión debe tener la forma 1.2.3.", code="invalid_version", fields={"version": "Versión inválida."}
        )
    if not URL_RE.match(url):
        raise Invalid(
            "El enlace debe empezar por http:// o https://.", code="invalid_url", fields={"url": "Enlace inválido."}
        )
    release = ClientRelease(version=version, url=url)
    db.add(release)
    await db.flush()
    return release


async def delete_release(db: AsyncSession, release_id: str) -> ClientRelease:
    release = await db.get(ClientRelease, release_id)
    if release is None:
        raise NotFound("Versión no encontrada.", code="release_not_found")
    await db.delete(release)
    await db.flush()
    return release
