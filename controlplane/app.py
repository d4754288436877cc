"""The Litestar application factory."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin

from controlplane.dependencies import COMMON_DEPENDENCIES
from controlplane.domain.accounts.controllers import (
    AdminAuthController,
    ClientAuthController,
    SessionController,
    SettingsController,
)
from controlplane.domain.switches.controllers import AdminSwitchesController, PublicConfigController
from controlplane.errors import EXCEPTION_HANDLERS
from controlplane.services import Services, build_services
from controlplane.settings import Settings
from controlplane.webui import webui_router

log = logging.getLogger(__name__)

ROUTE_HANDLERS = [
    PublicConfigController,
    ClientAuthController,
    SessionController,
    SettingsController,
    AdminAuthController,
    AdminSwitchesController,
]


def create_app(settings: Settings | None = None, services: Services | None = None) -> Litestar:
    """Build the app; `services` may be given by tests that want to reach inside (fakes, clocks)."""
    settings = settings or (services.settings if services else Settings.from_env())

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncGenerator[None, None]:
        owned = services is None
        app.state.services = services or build_services(settings)
        try:
            yield
        finally:
            if owned:
                await app.state.services.close()

    config = AppConfig(
        route_handlers=[*ROUTE_HANDLERS, webui_router],
        dependencies=COMMON_DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=[lifespan],
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title=f"{settings.product_name} API",
            version="1",
            path="/api/schema",
            render_plugins=[SwaggerRenderPlugin()],
        ),
    )
    return Litestar.from_config(config)
