"""The guest passes' part for their controllers."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, after_customer, services_of
from controlplane.domain.guest_passes.service import GuestPassService


async def provide_guest_passes(request: Request[Any, Any, Any]) -> GuestPassService:
    return services_of(request).guest_passes


GuestPasses = Part[GuestPassService]

GUEST_PASSES = {"guest_passes": Provide(provide_guest_passes)}
CUSTOMER_GUEST_PASSES = {"guest_passes": after_customer(provide_guest_passes)}
