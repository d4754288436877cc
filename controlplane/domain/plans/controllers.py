"""`GET /api/client/plans`: the catalogue, readable without a session (the public /plans page shows it too)."""

from __future__ import annotations

from litestar import Controller, get

from controlplane.dependencies import DB, not_in_maintenance
from controlplane.domain.plans.service import PlanView, visible_plans


class PlanController(Controller):
    path = "/api/client/plans"
    tags = ["plans"]
    guards = [not_in_maintenance]

    @get("/", operation_id="listPlans")
    async def list_plans(self, db: DB) -> list[PlanView]:
        return await visible_plans(db)
