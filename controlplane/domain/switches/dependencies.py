"""The switches' service for the manager's switch page (domain/switches/controllers.py); their current values are
every controller's `switches` (controlplane/dependencies.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, services_of
from controlplane.domain.switches.service import SwitchService


async def provide_switch_service(request: Request[Any, Any, Any]) -> SwitchService:
    return services_of(request).switches


SwitchServiceDep = Part[SwitchService]

SWITCHES = {"switch_service": Provide(provide_switch_service)}
