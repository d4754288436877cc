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
from litestar.params import SkipValidationMarker
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import SecretBox
from controlplane.db import transaction
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
from controlplane.query_params import strict_query
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
    """One transaction per request: committed when the handler returns, rolled back when it raises. GET handlers
    read only (a handler that must write on GET says so with `opt={"writes": True}`)."""
    services = services_of(request)
    reads = request.method in READING_METHODS and not request.route_handler.opt.get("writes")
    async with transaction(services.read_sessionmaker if reads else services.sessionmaker) as session:
        yield session


async def provide_session_after_customer(
    request: Request[Any, Any, Any], customer: NamedDependency[Any]
) -> AsyncGenerator[AsyncSession, None]:
    """The same, opened once the caller is known (see CUSTOMER): a request with a bad token takes no connection."""
    async for session in provide_session(request):
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


# The `opt` of a handler that calls provide_customer itself rather than taking the `customer` parameter (the peer
# list: domain/peers/controllers.py); the OpenAPI document gives it the answers of an authenticated route.
RESOLVES_CUSTOMER = "resolves_customer"


async def provide_customer(request: Request[Any, Any, Any]) -> Principal:
    return await services_of(request).sessions.resolve(bearer_token(request), CLIENT)


async def authenticate_staff(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal:
    """The staff session the bearer token names (401 without one, 403 for a customer's), for the role guards, which
    run before any dependency (a token not remembered is checked in a read-only transaction of its own), and kept
    on the connection for the handler's `staff`."""
    principal = await services_of(connection).sessions.resolve(bearer_token(connection), ADMIN)
    connection.scope["user"] = principal
    return principal


async def provide_staff(request: Request[Any, Any, Any]) -> Principal:
    """The caller the route's role guard let through (domain/accounts/guards.py)."""
    principal = request.scope.get("user")
    if not isinstance(principal, Principal):
        raise ImproperlyConfiguredException(f"{request.route_handler} takes `staff` but has no role guard")
    return principal


async def customer_area(request: Request[Any, Any, Any]) -> None:
    """The customer controllers' `before_request` hook, run before the body is read or any dependency resolved:
    503 while maintenance is on (handlers marked exempt keep answering), then the query string read strictly.

    Litestar runs only the closest layer's `before_request`, so this one also does the app's (strict_query). Not a
    guard: Litestar copies the route handler object for every guard it calls, a tenth of a cached peer list's time
    (docs/benchmarks.md, "Peer list")."""
    exempt = request.route_handler.opt.get("maintenance_exempt")
    if not exempt and (await services_of(request).switches.current()).maintenance:
        raise Maintenance()
    await strict_query(request)


COMMON_DEPENDENCIES: dict[str, Provide | Callable[..., Any]] = {
    **{name: _part(field) for name, field in PARTS.items()},
    "db": Provide(provide_session),
    "switches": Provide(provide_switches),
    "ip": Provide(provide_client_ip),
    "staff": Provide(provide_staff),
}
# The customer area's controllers take these: the caller first (a remembered token needs no database session),
# then the parts of the app and `db`, each after it. Litestar resolves dependencies that do not depend on each other
# in a task group, dearer than a cached peer list itself: the list (a part and the caller, no `db`: it opens a
# session only on a miss) resolves one at a time; a handler that takes `db` and a part pays the group.
CUSTOMER: dict[str, Provide | Callable[..., Any]] = {
    "customer": Provide(provide_customer),
    "db": Provide(provide_session_after_customer),
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
