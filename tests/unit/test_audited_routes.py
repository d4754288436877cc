"""Every staff write says on its route which audit actions it records (`opt=audited(...)`, domain/audit/trail.py):
a handler that takes the request's `audit` trail declares them, a route that declares them takes the trail, and
every action the manager's Registro page can show is recorded by some route."""

from __future__ import annotations

import inspect

from litestar.handlers import HTTPRouteHandler

from controlplane.app import create_app
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import AUDIT
from controlplane.settings import Settings


def _handlers() -> list[HTTPRouteHandler]:
    app = create_app(Settings(database_url="sqlite+aiosqlite:///:memory:"))
    found: list[HTTPRouteHandler] = []
    for route in app.routes:
        for handler in getattr(route, "route_handlers", []):
            if isinstance(handler, HTTPRouteHandler):
                found.append(handler)
    return found


def test_a_handler_takes_the_audit_trail_exactly_when_its_route_declares_actions() -> None:
    takes = {h.operation_id for h in _handlers() if "audit" in inspect.signature(h.fn).parameters}
    declares = {h.operation_id for h in _handlers() if h.opt.get(AUDIT)}
    assert takes == declares
    assert len(declares) == 21


def test_every_audit_action_is_recorded_by_some_route() -> None:
    declared = {action for h in _handlers() for action in h.opt.get(AUDIT, ())}
    assert declared == set(AuditAction)
