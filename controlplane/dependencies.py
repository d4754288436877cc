"""Request-scoped dependencies and guards shared by every controller.

Handlers name the parts of the app they use: `peers: Peers`, `audit: Audit`, `settings: SettingsDep`... one
dependency per field of `Services` (services.py, the composition root; its product is kept on `app.state.services`
and read here, the one way in). No handler receives the whole container and no controller imports services.py
(tests/unit/test_controller_imports.py). Who among the staff may call an admin route is a guard on the route
(domain/accounts/guards.py), which finds the caller with `authenticate_staff`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncGenerator, Callable
from dataclasses import fields
from typing import Annotated, Any, TypeAlias, TypeVar

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.di import Dependency, NamedDependency, Provide
from litestar.exceptions import ImproperlyConfiguredException
from litestar.handlers import BaseRouteHandler
from litestar.params import SkipValidationMarker
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import SecretBox
from controlplane.db import provide_db, transaction
from controlplane.domain.accounts.deletion import AccountDeletion
from controlplane.domain.accounts.service import AccountService
from controlplane.domain.accounts.sessions import ADMIN, CLIENT, Principal, SessionService
from controlplane.domain.accounts.staff import StaffUsers
from controlplane.domain.audit.service import AuditLog
from controlplane.domain.invoices.service import InvoiceService
from controlplane.domain.peers.service import PeerService
from controlplane.domain.rooms.service import RoomService
from controlplane.domain.servers.service import ServerService
from controlplane.domain.switches.service import Switches, SwitchService
from controlplane.errors import Maintenance, Unauthorized
from controlplane.mail import Mailer
from controlplane.nodes.operations import NodeOperations
from controlplane.nodes.registry import AgentRegistry
from controlplane.ratelimit import RateLimiter
from controlplane.realtime.hub import PushHub
from controlplane.services import Services
from controlplane.settings import Settings


def services_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Services:
    """The built services, for what is not a handler (guards, the socket, the web UI's files)."""
    services: Services = connection.app.state.services
    return services


# The dependency name of each field of `Services`: the field's own, except the switches' service (`switches` are
# the switches' current values: provide_switches).
PARTS: dict[str, str] = {("switch_service" if f.name == "switches" else f.name): f.name for f in fields(Services)}


def _part(field: str) -> Provide:
    """One field of the built services: an attribute read, nothing awaited, no thread."""

    async def provide(request: Request[Any, Any, Any]) -> Any:
        return getattr(request.app.state.services, field)

    return Provide(provide)


def _part_after_customer(field: str) -> Provide:
    """The same, resolved after the customer (see CUSTOMER)."""

    async def provide(request: Request[Any, Any, Any], customer: NamedDependency[Any]) -> Any:
        return getattr(request.app.state.services, field)

    return Provide(provide)


READING_METHODS = frozenset({"GET", "HEAD"})


async def provide_session(request: Request[Any, Any, Any]) -> AsyncGenerator[AsyncSession, None]:
    """GET handlers read only (a handler that must write on GET says so with `opt={"writes": True}`).

    It depends on nothing, and what depends on it (the customer, and in the customer area the parts of the app)
    comes after it: dependencies that do not depend on each other are resolved in a task group per request, which
    costs more than the rest of a peer list served from the caches."""
    services = services_of(request)
    reads = request.method in READING_METHODS and not request.route_handler.opt.get("writes")
    async for session in provide_db(services.read_sessionmaker if reads else services.sessionmaker):
        yield session


async def provide_switches(request: Request[Any, Any, Any]) -> Switches:
    return await services_of(request).switches.current()


def client_ip(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The caller's address; X-Forwarded-For is believed only from configured reverse proxies."""
    peer = connection.client.host if connection.client else "unknown"
    if peer not in services_of(connection).settings.trusted_proxies:
        return peer
    forwarded = connection.headers.get("x-forwarded-for")
    if forwarded:
        candidate = forwarded.split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(candidate))
        except ValueError:
            return peer
    return peer


async def provide_client_ip(request: Request[Any, Any, Any]) -> str:
    return client_ip(request)


def bearer_token(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Debe iniciar sesión.", code="missing_token")
    return token.strip()


async def provide_customer(request: Request[Any, Any, Any], db: NamedDependency[AsyncSession]) -> Principal:
    return await services_of(request).sessions.resolve(db, bearer_token(request), CLIENT)


async def authenticate_staff(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal:
    """The staff session the bearer token names (401 without one, 403 for a customer's), for the role guards, which
    run before any dependency: checked in a read-only transaction of its own (none when the token is remembered),
    and kept on the connection for the handler's `staff`."""
    services = services_of(connection)
    token = bearer_token(connection)
    async with transaction(services.read_sessionmaker) as db:
        principal = await services.sessions.resolve(db, token, ADMIN)
    connection.scope["user"] = principal
    return principal


async def provide_staff(request: Request[Any, Any, Any]) -> Principal:
    """The caller the route's role guard let through (domain/accounts/guards.py)."""
    principal = request.scope.get("user")
    if not isinstance(principal, Principal):
        raise ImproperlyConfiguredException(f"{request.route_handler} takes `staff` but has no role guard")
    return principal


async def not_in_maintenance(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Customer endpoints answer 503 while maintenance is on; handlers marked exempt keep answering."""
    if handler.opt.get("maintenance_exempt"):
        return
    if (await services_of(connection).switches.current()).maintenance:
        raise Maintenance()


COMMON_DEPENDENCIES: dict[str, Provide | Callable[..., Any]] = {
    **{name: _part(field) for name, field in PARTS.items()},
    "db": Provide(provide_session),
    "switches": Provide(provide_switches),
    "ip": Provide(provide_client_ip),
    "staff": Provide(provide_staff),
}
# The customer area's controllers take these: the caller, and every part of the app resolved after it (so after
# `db`): a handler that takes one part, `db` and `customer` (the peer list) resolves them one at a time.
CUSTOMER: dict[str, Provide | Callable[..., Any]] = {
    "customer": Provide(provide_customer),
    **{name: _part_after_customer(field) for name, field in PARTS.items()},
}

# What handlers declare, by parameter name: `db: DB`, `customer: Customer`, `peers: Peers`...
DB = NamedDependency[AsyncSession]
SwitchesDep = NamedDependency[Switches]
ClientIP = NamedDependency[str]
Customer = NamedDependency[Principal]
Staff = NamedDependency[Principal]

T = TypeVar("T")
# A part of the app, taken by its name in Services; not checked against its type on every call (it is built once,
# by services.py; some types, like RateLimiter, are protocols that cannot be checked at all).
Part: TypeAlias = Annotated[T, Dependency(kind="named"), SkipValidationMarker()]
Accounts = Part[AccountService]
Agents = Part[AgentRegistry]
Audit = Part[AuditLog]
Box = Part[SecretBox]
Deletion = Part[AccountDeletion]
Hub = Part[PushHub]
Invoices = Part[InvoiceService]
Limiter = Part[RateLimiter]
MailerDep = Part[Mailer]
Operations = Part[NodeOperations]
Peers = Part[PeerService]
Rooms = Part[RoomService]
Servers = Part[ServerService]
Sessionmaker = Part[async_sessionmaker[AsyncSession]]
Sessions = Part[SessionService]
SettingsDep = Part[Settings]
StaffUsersDep = Part[StaffUsers]
SwitchServiceDep = Part[SwitchService]
