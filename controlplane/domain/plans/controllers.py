"""`GET /api/client/plans`: the catalogue, readable without a session (the public /plans page shows it too); and the
manager's Planes page, where admins edit it (`/api/admin/plans`)."""

from __future__ import annotations

from litestar import Controller, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.dependencies import DB, Audit, customer_area
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import audited
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

    @post(
        "/", status_code=201, operation_id="adminCreatePlan", guards=[admin_only], opt=audited(AuditAction.PLAN_CREATE)
    )
    async def create(self, db: DB, audit: Audit, data: JSONBody[staff_schemas.PlanInput]) -> staff_schemas.StaffPlan:
        plan = await plans.create_plan(db, data)
        audit.note(
            "plan", plan.id,
            f"Plan {plan.name}: {plan.price} USD, {plan.validity_hours} h, {'visible' if plan.visible else 'oculto'}"
            + (", pase de invitado" if plan.guest_pass else ""),
        )  # fmt: skip
        return plans.plan_view(plan)

    @patch("/{plan_id:str}", operation_id="adminUpdatePlan", guards=[admin_only], opt=audited(AuditAction.PLAN_UPDATE))
    async def update(
        self, db: DB, audit: Audit, plan_id: FromPath[str], data: JSONBody[staff_schemas.PlanPatch]
    ) -> staff_schemas.StaffPlan:
        plan, changes = await plans.update_plan(db, plan_id, data)
        audit.note("plan", plan.id, f"{plan.name}: {changes_text(changes)}")
        return plans.plan_view(plan)
