"""Request-scoped dependencies and guards shared by every controller."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncGenerator, Callable
from typing import Any

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency, Provide
from litestar.handlers import BaseRouteHandler
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import provide_db
from controlplane.domain.accounts.sessions import ADMIN, CLIENT, Principal
from controlplane.domain.manager.access import check_role
from controlplane.domain.switches.service import Switches
from controlplane.errors import Maintenance, Unauthorized
from controlplane.services import Services


def services_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Services:
    services: Services = connection.app.state.services
    return services


async def provide_services(request: Request[Any, Any, Any]) -> Services:
    return services_of(request)


READING_METHODS = frozenset({"GET", "HEAD"})


async def provide_session(
    request: Request[Any, Any, Any], services: NamedDependency[Services]
) -> AsyncGenerator[AsyncSession, None]:
    """GET handlers read only (a handler that must write on GET says so with `opt={"writes": True}`).

    It takes `services` only to come after it: dependencies that do not depend on each other are resolved in a
    task group per request, which costs more than the rest of a peer list served from the caches."""
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


async def provide_staff(request: Request[Any, Any, Any], db: NamedDependency[AsyncSession]) -> Principal:
    """A staff session whose role may call this handler (the manager roles are checked here, once)."""
    principal = await services_of(request).sessions.resolve(db, bearer_token(request), ADMIN)
    check_role(principal, request.route_handler.opt)
    return principal


async def not_in_maintenance(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Customer endpoints answer 503 while maintenance is on; handlers marked exempt keep answering."""
    if handler.opt.get("maintenance_exempt"):
        return
    if (await services_of(connection).switches.current()).maintenance:
        raise Maintenance()


COMMON_DEPENDENCIES: dict[str, Provide | Callable[..., Any]] = {
    "services": Provide(provide_services),
    "db": Provide(provide_session),
    "switches": Provide(provide_switches),
    "ip": Provide(provide_client_ip),
}
CUSTOMER = {"customer": Provide(provide_customer)}
STAFF = {"staff": Provide(provide_staff)}

# What handlers declare, by parameter name: `db: DB`, `services: ServicesDep`, `customer: Customer`...
DB = NamedDependency[AsyncSession]
ServicesDep = NamedDependency[Services]
SwitchesDep = NamedDependency[Switches]
ClientIP = NamedDependency[str]
Customer = NamedDependency[Principal]
Staff = NamedDependency[Principal]
