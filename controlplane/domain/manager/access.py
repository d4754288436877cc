"""Who among the staff may call which admin endpoint: the one place the manager roles are enforced.

Every admin handler is admin-only unless it says otherwise with `opt={"support": True}`; the check runs when the
`staff` dependency resolves the caller, so no handler can forget it (docs/api.md, "Manager roles").
"""

from __future__ import annotations

from typing import Any

from controlplane.domain.accounts.models import Role
from controlplane.domain.accounts.sessions import Principal
from controlplane.errors import Forbidden

# Marks a handler that support may call too (reads, and the ways of helping a customer that move no money).
SUPPORT: dict[str, Any] = {"support": True}


def check_role(principal: Principal, handler_opt: dict[str, Any]) -> None:
    if principal.role is Role.ADMIN:
        return
    if principal.role is Role.SUPPORT and handler_opt.get("support"):
        return
    raise Forbidden("Solo un administrador puede hacer esto.", code="admin_only")
