"""The audit of one request: a route declares the actions it records (`opt=audited(...)`), its handler notes what it
changed, and the notes are written in the request's own transaction just before it commits (controlplane/
dependencies.py, `provide_audit`). A handler that raises leaves no entry, and no change commits without its entry."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.accounts.sessions import Principal
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.service import AuditLog

# The route `opt` key holding the actions a route records.
AUDIT = "audit"


def audited(*actions: AuditAction, **opt: Any) -> dict[str, Any]:
    """A route's `opt` naming the actions its handler may note (and any other `opt` it has)."""
    if not actions:
        raise ValueError("an audited route names at least one action")
    return {AUDIT: actions, **opt}


class UndeclaredAuditAction(RuntimeError):
    """A handler noted an action its route does not declare: the declaration is what readers and tests trust."""


@dataclass
class AuditTrail:
    log: AuditLog
    db: AsyncSession
    staff: Principal
    ip: str
    actions: tuple[AuditAction, ...]
    notes: list[tuple[AuditAction, str, str | None, str]] = field(default_factory=list)

    def note(self, target_type: str, target_id: str | None, summary: str, action: AuditAction | None = None) -> None:
        """What the request changed, written when it commits. `action` may be left out when the route declares
        one."""
        if action is None:
            if len(self.actions) != 1:
                raise UndeclaredAuditAction(f"the route declares {self.actions}: name the one noted")
            action = self.actions[0]
        if action not in self.actions:
            raise UndeclaredAuditAction(f"{action} is not among the route's {self.actions}")
        self.notes.append((action, target_type, target_id, summary))

    async def write(self) -> None:
        for action, target_type, target_id, summary in self.notes:
            await self.log.record(self.db, self.staff, self.ip, action, target_type, target_id, summary)
