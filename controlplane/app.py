"""The Litestar application factory."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin

from controlplane.allow_header import allow_header_hook
from controlplane.api_compression import customer_api_compression
from controlplane.dependencies import COMMON_DEPENDENCIES
from controlplane.domain.accounts.controllers import (
    AdminAuthController,
    AdminUserController,
    ClientAuthController,
    OwnSessionsController,
    SessionController,
    SettingsController,
)
from controlplane.domain.announcements.controllers import (
    AdminAnnouncementController,
    AdminReleaseController,
    HomeController,
)
from controlplane.domain.audit.controllers import AdminAuditController
from controlplane.domain.guest_passes.controllers import GuestPassController, PublicGuestPassController
from controlplane.domain.invoices.controllers import (
    AdminInvoiceController,
    InvoiceController,
    PaymentGatewayController,
)
from controlplane.domain.manager.controllers import AdminOverviewController
from controlplane.domain.paylinks.controllers import PaymentLinkController, PublicPaymentLinkController
from controlplane.domain.peers.controllers import AdminPeerController, MirrorController, PeerController
from controlplane.domain.plans.controllers import AdminPlanController, PlanController
from controlplane.domain.rooms.controllers import RoomController
from controlplane.domain.servers.controllers import AdminServerController
from controlplane.domain.switches.controllers import AdminSwitchesController, PublicConfigController
from controlplane.domain.usage.controllers import UsageController
from controlplane.errors import EXCEPTION_HANDLERS
from controlplane.jobs.scheduler import Jobs
from controlplane.nodes.agent_port import AgentPortGate
from controlplane.nodes.servicer import NodeControlServicer, start_grpc_server
from controlplane.observability.health import healthz, readyz
from controlplane.observability.metrics import http_observer, metrics_endpoint
from controlplane.openapi_errors import document_errors
from controlplane.openapi_push import document_push_messages
from controlplane.query_params import strict_query
from controlplane.realtime.socket import live_socket
from controlplane.requests import StrictJSONRequest
from controlplane.security_headers import security_headers_hook
from controlplane.services import Services, build_services
from controlplane.settings import Settings
from controlplane.webui import immutable_assets_hook, webui_router

log = logging.getLogger(__name__)

ROUTE_HANDLERS: list[Any] = [
    PublicConfigController,
    ClientAuthController,
    SessionController,
    SettingsController,
    OwnSessionsController,
    AdminAuthController,
    AdminSwitchesController,
    PeerController,
    UsageController,
    RoomController,
    MirrorController,
    PlanController,
    InvoiceController,
    PaymentGatewayController,
    PaymentLinkController,
    PublicPaymentLinkController,
    GuestPassController,
    PublicGuestPassController,
    HomeController,
    # Manager pages: each domain's admin endpoints, roles on their routes (domain/accounts/guards.py).
    AdminInvoiceController,
    AdminServerController,
    AdminUserController,
    AdminPeerController,
    AdminPlanController,
    AdminAnnouncementController,
    AdminReleaseController,
    AdminAuditController,
    AdminOverviewController,
    live_socket,
    healthz,
    readyz,
    metrics_endpoint,
]


def tune_garbage_collection() -> None:
    """Garbage collection, tuned for a process that holds thousands of sockets (docs/benchmarks.md, "Reconnect
    storms"): what the start-up made (modules, mappers, routes) lives as long as the process, so it is left out of
    every later collection; and the youngest generation is collected every 50 000 new objects rather than 700, so
    10 000 sockets opening at once (about a million objects) set off no full collection instead of ten (each walks
    every object: up to 0.8 s at 10 000 sockets)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, *gc.get_threshold()[1:])


def create_app(settings: Settings | None = None, services: Services | None = None) -> Litestar:
    """Build the app; `services` may be given by tests that want to reach inside (fakes, clocks)."""
    settings = settings or (services.settings if services else Settings.from_env())

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncGenerator[None, None]:
        owned = services is None
        running: Services = services or build_services(settings)
        app.state.services = running
        await running.start()
        grpc_server = servicer = None
        if settings.run_grpc:
            gate = AgentPortGate(
                settings.trusted_proxies,
                per_address=settings.grpc_unauthenticated_per_address,
                total=settings.grpc_unauthenticated_total,
            )
            servicer = NodeControlServicer(running.agent_sessions, running.agents, gate)
            grpc_server = await start_grpc_server(
                servicer, settings.grpc_bind, settings.grpc_tls_cert, settings.grpc_tls_key, settings.grpc_local_socket
            )
        jobs = Jobs(running) if settings.run_jobs else None
        if jobs:
            jobs.start()
        if owned:
            tune_garbage_collection()
        try:
            yield
        finally:
            if jobs:
                await jobs.stop()
            if grpc_server is not None and servicer is not None:
                await servicer.stop(grpc_server)  # before the database closes: streams write on their way out
            if owned:
                await running.close()

    config = AppConfig(
        route_handlers=[*ROUTE_HANDLERS, webui_router],
        dependencies=COMMON_DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
        request_class=StrictJSONRequest,
        before_request=strict_query,
        lifespan=[lifespan],
        request_max_body_size=settings.max_body_bytes,
        before_send=[security_headers_hook(settings), allow_header_hook(), immutable_assets_hook()],
        compression_config=customer_api_compression(),
        openapi_config=OpenAPIConfig(
            title=f"{settings.product_name} API",
            version="1",
            path="/api/schema",
            # The document only (/api/schema/openapi.json), no viewer: the usual viewers load their code from a CDN
            # onto this origin, whose storage holds the sessions' tokens (docs/security.md, "API viewer").
            render_plugins=[JsonRenderPlugin()],
        ),
    )
    app = Litestar.from_config(config)
    # Around the router, not among the routes' middleware: a 404 for a path no route matches and a 405 for a method
    # the route lacks are answered by the router itself, and they too carry the request id, an access line and
    # their metric (the deployment rehearsal found nginx's id missing from a 405).
    app.asgi_handler = http_observer(app.asgi_handler)
    document_errors(app)
    document_push_messages(app)
    return app
