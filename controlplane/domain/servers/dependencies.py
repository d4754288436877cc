"""The servers' parts for the manager's controllers: the Servidores page's `ServerAdmin` (built per request from
the long-lived parts) and which agents are connected to this process (the overview counts them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, services_of
from controlplane.domain.servers.admin import ServerAdmin


async def provide_server_admin(request: Request[Any, Any, Any]) -> ServerAdmin:
    services = services_of(request)
    return ServerAdmin(
        services.servers, services.peers, services.rooms, services.operations, services.agents.connected,
        services.settings,
    )  # fmt: skip


async def provide_connected_ids(request: Request[Any, Any, Any]) -> Callable[[], set[str]]:
    return services_of(request).agents.connected_ids


ServerAdminDep = Part[ServerAdmin]
ConnectedIds = Part[Callable[[], set[str]]]

SERVER_ADMIN = {"server_admin": Provide(provide_server_admin)}
CONNECTED_IDS = {"connected_ids": Provide(provide_connected_ids)}
