"""The audit log, searched by the manager's Registro page (domain/audit/controllers.py). Writing to it is the
request's `audit` trail (controlplane/dependencies.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, services_of
from controlplane.domain.audit.service import AuditLog


async def provide_audit_log(request: Request[Any, Any, Any]) -> AuditLog:
    return services_of(request).audit


AuditLogDep = Part[AuditLog]

AUDIT_LOG = {"audit_log": Provide(provide_audit_log)}
