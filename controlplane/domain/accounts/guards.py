"""Who among the staff may call an admin endpoint, said on its route: `guards=[admin_only]` or
`guards=[admin_or_support]` (docs/api.md, "Manager roles").

Support reads, and helps customers in the ways that move no money; everything else is for admins. A guard runs
before anything else of the request: it checks the access token (401 without a valid one, 403 for a customer's)
and then the role, and leaves the caller for the handler's `staff` parameter. Every admin route has exactly one of
these (tests/api/manager/test_roles.py fails otherwise; `staff` without one answers 500).
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from controlplane.dependencies import authenticate_staff
from controlplane.domain.accounts.models import Role
from controlplane.errors import Forbidden


def _admins_only() -> Forbidden:
    return Forbidden("Solo un administrador puede hacer esto.", code="admin_only")


async def admin_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    if (await authenticate_staff(connection)).role is not Role.ADMIN:
        raise _admins_only()


async def admin_or_support(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    if (await authenticate_staff(connection)).role not in (Role.ADMIN, Role.SUPPORT):
        raise _admins_only()


ROLE_GUARDS = (admin_only, admin_or_support)
