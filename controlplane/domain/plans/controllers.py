"""`GET /api/client/plans`: the catalogue, readable without a session (the public /plans page shows it too); and the
manager's Planes page, where admins edit it (`/api/admin/plans`)."""

from __future__ import annotations

from litestar import Controller, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.dependencies import DB, Audit, ClientIP, Staff, customer_area
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.plans import staff as plans
from controlplane.domain.plans import staff_schemas
from controlplane.domain.plans.service import PlanView, visible_plans
from controlplane.domain.staff_forms import changes_text


class PlanController(Controller):
    path = "/api/client/plans"
    tags = ["plans"]
    before_request = staticmethod(customer_area)

    @get("/", operation_id="listPlans")
    async def list_plans(self, db: DB) -> list[PlanView]:
        return await visible_plans(db)


class AdminPlanController(Controller):
    path = "/api/admin/plans"
    tags = ["admin"]

    @get("/", operation_id="adminListPlans", guards=[admin_or_support])
    async def list_plans(self, db: DB) -> list[staff_schemas.StaffPlan]:
        return await plans.all_plans(db)

    @post("/", status_code=201, operation_id="adminCreatePlan", guards=[admin_only])
    async def create(
        self, audit: Audit, db: DB, staff: Staff, ip: ClientIP, data: JSONBody[staff_schemas.PlanInput]
    ) -> staff_schemas.StaffPlan:
        plan = await plans.create_plan(db, data)
        await audit.record(
            db, staff, ip, AuditAction.PLAN_CREATE, "plan", plan.id,
            f"Plan {plan.name}: {plan.price} USD, {plan.validity_hours} h, {'visible' if plan.visible else 'oculto'}",
        )  # fmt: skip
        return plans.plan_view(plan)

    @patch("/{plan_id:str}", operation_id="adminUpdatePlan", guards=[admin_only])
    async def update(
        self, audit: Audit, db: DB, staff: Staff, ip: ClientIP, plan_id: FromPath[str],
        data: JSONBody[staff_schemas.PlanPatch],
    ) -> staff_schemas.StaffPlan:  # fmt: skip
        plan, changes = await plans.update_plan(db, plan_id, data)
        summary = changes_text(changes)
        await audit.record(db, staff, ip, AuditAction.PLAN_UPDATE, "plan", plan.id, f"{plan.name}: {summary}")
        return plans.plan_view(plan)
