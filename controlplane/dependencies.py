"""Request-scoped dependencies and guards every controller shares: the request's transaction (`db`), the settings,
the caller (`customer`, or the `staff` a role guard let through), their address (`ip`), the switches' values, the
rate limiter, the mailer and the request's audit trail (`audit`, written just before the transaction commits).

Each domain's own parts are provided beside it (domain/<domain>/dependencies.py, typed, on its controllers); all of
them read the built services with `services_of`, the one way to the composition root (services.py): no controller
imports it (tests/unit/test_controller_imports.py). Who among the staff may call an admin route is a guard on the
route (domain/accounts/guards.py), which finds the caller with `authenticate_staff`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Annotated, Any, TypeAlias, TypeVar

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.di import Dependency, NamedDependency, Provide
from litestar.exceptions import ImproperlyConfiguredException
from litestar.params import SkipValidationMarker
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import before_commit, transaction
from controlplane.domain.accounts.sessions import ADMIN, CLIENT, Principal
from controlplane.domain.audit.trail import AUDIT, AuditTrail
from controlplane.domain.switches.service import Switches
from controlplane.errors import Maintenance, Unauthorized
from controlplane.mail import Mailer
from controlplane.query_params import strict_query
from controlplane.ratelimit import RateLimiter
from controlplane.services import Services
from controlplane.settings import Settings


def services_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Services:
    """The built services, for what is not a handler (guards, the socket, the web UI's files)."""
    services: Services = connection.app.state.services
    return services


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


async def provide_settings(request: Request[Any, Any, Any]) -> Settings:
    return services_of(request).settings


async def provide_limiter(request: Request[Any, Any, Any]) -> RateLimiter:
    return services_of(request).limiter


async def provide_mailer(request: Request[Any, Any, Any]) -> Mailer:
    return services_of(request).mailer


async def provide_audit(request: Request[Any, Any, Any], db: DB, staff: Staff, ip: ClientIP) -> AuditTrail:
    """The request's audit trail, for a route that declares its actions (`opt=audited(...)`, domain/audit/trail.py):
    what the handler notes is written in its transaction just before the commit, so a request that fails leaves no
    entry and no change commits without one."""
    actions = request.route_handler.opt.get(AUDIT)
    if not actions:
        raise ImproperlyConfiguredException(f"{request.route_handler} takes `audit` but declares no audited actions")
    trail = AuditTrail(services_of(request).audit, db, staff, ip, tuple(actions))
    before_commit(db, trail.write)
    return trail


T = TypeVar("T")


def after_customer(provide: Callable[[Request[Any, Any, Any]], Awaitable[T]]) -> Provide:
    """`provide`, resolved once the customer is known (see CUSTOMER)."""

    async def provider(request: Request[Any, Any, Any], customer: NamedDependency[Principal]) -> T:
        return await provide(request)

    return Provide(provider)


# The app's own dependencies (controlplane/app.py): what every controller may take by these names.
COMMON_DEPENDENCIES: dict[str, Provide | Callable[..., Any]] = {
    "db": Provide(provide_session),
    "settings": Provide(provide_settings),
    "switches": Provide(provide_switches),
    "ip": Provide(provide_client_ip),
    "staff": Provide(provide_staff),
    "limiter": Provide(provide_limiter),
    "mailer": Provide(provide_mailer),
    "audit": Provide(provide_audit),
}
# The customer area's controllers take these (with their domain's own, each `after_customer`): the caller first (a
# remembered token needs no database session), then the parts of the app and `db`, each after it. Litestar resolves
# dependencies that do not depend on each other in a task group, dearer than a cached peer list itself: the list (a
# part and the caller, no `db`: it opens a session only on a miss) resolves one at a time; a handler that takes `db`
# and a part pays the group.
CUSTOMER: dict[str, Provide | Callable[..., Any]] = {
    "customer": Provide(provide_customer),
    "db": Provide(provide_session_after_customer),
    "settings": after_customer(provide_settings),
    "limiter": after_customer(provide_limiter),
    "mailer": after_customer(provide_mailer),
}

# What handlers declare, by parameter name: `db: DB`, `customer: Customer`, `peers: Peers`...
DB = NamedDependency[AsyncSession]
SwitchesDep = NamedDependency[Switches]
ClientIP = NamedDependency[str]
Customer = NamedDependency[Principal]
Staff = NamedDependency[Principal]

# A long-lived part of the app (built once by services.py), taken by its name: not checked against its type on
# every call (some, like RateLimiter, are protocols that cannot be checked at all). Each domain names its own:
# `Peers = Part[PeerService]` in domain/peers/dependencies.py.
Part: TypeAlias = Annotated[T, Dependency(kind="named"), SkipValidationMarker()]
SettingsDep = Part[Settings]
Limiter = Part[RateLimiter]
MailerDep = Part[Mailer]
Audit = Part[AuditTrail]
