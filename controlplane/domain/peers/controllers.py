"""Customer peer endpoints (docs/contract.md#peer-calls), the public mirror links, and the manager's Peers page
(`/api/admin/peers`)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Annotated, Any

import msgspec
from litestar import Controller, MediaType, Request, Response, get, patch, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.response.base import ASGIResponse

from controlplane.db import utcnow
from controlplane.dependencies import (
    CUSTOMER,
    DB,
    RESOLVES_CUSTOMER,
    Accounts,
    Audit,
    Box,
    ClientIP,
    Customer,
    Hub,
    Limiter,
    Peers,
    Servers,
    Sessionmaker,
    SettingsDep,
    Staff,
    customer_area,
    provide_customer,
    services_of,
)
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.accounts.models import Role
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.manager import schemas as staff_schemas
from controlplane.domain.peers import mirror_binding, schemas
from controlplane.domain.peers.config_file import content_disposition
from controlplane.domain.peers.staff import search_peers, staff_peer
from controlplane.domain.plans.staff import get_plan
from controlplane.domain.servers.models import Server
from controlplane.errors import Invalid, NotFound
from controlplane.query_params import LOOSE_QUERY

STAFF_NAME_TAKEN = "El cliente ya tiene un peer con ese nombre."


class PeerController(Controller):
    path = "/api/client"
    tags = ["peers"]
    before_request = staticmethod(customer_area)
    dependencies = CUSTOMER

    @get(
        "/accounts/peers",
        operation_id="listPeers",
        opt={RESOLVES_CUSTOMER: True},
        responses={200: ResponseSpec(list[schemas.PeerView], generate_examples=False, description="Sus peers")},
    )
    async def list_peers(self, request: Request[Any, Any, Any]) -> ASGIResponse:
        # The hottest request of the service, written for it (docs/benchmarks.md, "Peer list"): no dependency
        # injected (resolving `customer` and `peers` was a fifth of a cached list's CPU) and the list's JSON as the
        # cache holds it, answered as it is.
        customer = await provide_customer(request)
        body = await services_of(request).peers.list_json_for(customer.user_id)
        return ASGIResponse(body=body, media_type=MediaType.JSON)

    @get(
        "/accounts/peers/{peer_id:str}",
        operation_id="downloadPeerConfig",
        media_type=MediaType.TEXT,
        opt={"errors": (409,)},
    )
    async def download(self, peers: Peers, db: DB, customer: Customer, peer_id: FromPath[str]) -> Response[str]:
        peer = await peers.owned(db, customer.user_id, peer_id)
        text = peers.config_text(peer)
        return Response(
            text,
            media_type=MediaType.TEXT,
            headers={
                "Content-Disposition": content_disposition("attachment", peer.name),
                "Cache-Control": "no-store",
            },
        )

    @patch(
        "/accounts/peers/{peer_id:str}",
        operation_id="operatePeer",
        opt={"errors": (409,)},
        # Two answers (docs/api.md, "Peers"): the link and device-binding operations are done when they
        # answer; new keys and a move are accepted and end later, told by push.
        responses={
            200: ResponseSpec(schemas.PeerUpdated, generate_examples=False, description="Hecho: el peer como queda"),
            202: ResponseSpec(
                schemas.PeerOperationAccepted,
                generate_examples=False,
                description="Aceptado: el resultado llega por push",
            ),
        },
    )
    async def operate(
        self,
        peers: Peers,
        limiter: Limiter,
        db: DB,
        customer: Customer,
        peer_id: FromPath[str],
        data: JSONBody[schemas.PeerOperation],
    ) -> Response[Any]:
        if data.operation == "regenerate_token":
            peer = await peers.regenerate_token(db, customer.user_id, peer_id)
            view = peers.view(peer)
            return Response(
                schemas.PeerUpdated(**msgspec.structs.asdict(view), message="Mirror Link regenerado correctamente.")
            )
        if data.operation == "rename":
            peer = await peers.rename(db, customer.user_id, peer_id, data.name or "")
            view = peers.view(peer)
            return Response(schemas.PeerUpdated(**msgspec.structs.asdict(view), message="Nombre del peer cambiado."))
        if data.operation == "regenerate":
            peer = await peers.regenerate(db, customer.user_id, peer_id)
        elif data.operation == "change_server":
            peer = await peers.change_server(db, customer.user_id, peer_id, data.server)
        elif data.operation in ("mirror_binding", "release_mirror_device", "confirm_mirror_device"):
            return Response(await self._bind_mirror(peers, limiter, db, customer, peer_id, data))
        else:
            raise Invalid("Operación desconocida.", code="unknown_operation", fields={"operation": "Desconocida."})
        # The answer's message is the running operation's own text: the view, a poll and a reload say the same.
        await db.flush()  # the view carries the version of what it shows (domain/versions.py)
        view = peers.view(peer)
        message = view.operation.message if view.operation is not None else ""
        return Response(schemas.PeerOperationAccepted(success=True, message=message, data=view), status_code=202)

    @staticmethod
    async def _bind_mirror(
        peers: Peers, limiter: Limiter, db: DB, customer: Customer, peer_id: str, data: schemas.PeerOperation
    ) -> schemas.PeerUpdated:
        """Synchronous, like regenerate_token: the mirror link's device binding (docs/api.md, "Mirror links")."""
        hint = mirror_binding.REGENERATE_HINT
        if data.operation == "release_mirror_device":
            peer = await mirror_binding.release(db, peers, customer.user_id, peer_id)
            message = (
                "El enlace mirror quedó libre: el dispositivo que lo use le mostrará un código de vinculación;"
                f" escríbalo aquí para vincularlo. {hint}"
            )
        elif data.operation == "confirm_mirror_device":
            peer = await mirror_binding.confirm(db, peers, limiter, customer.user_id, peer_id, data.code)
            message = "Código aceptado: el dispositivo que lo muestra quedará vinculado en su próxima consulta."
        else:
            if data.enabled is None:
                raise Invalid(
                    "Indique si activar la vinculación.", code="enabled_required", fields={"enabled": "Obligatorio."}
                )
            peer = await mirror_binding.set_binding(db, peers, customer.user_id, peer_id, data.enabled)
            message = (
                "Vinculación activada: el dispositivo que use el enlace mirror le mostrará un código de vinculación;"
                f" escríbalo aquí para vincularlo. {hint}"
                if data.enabled
                else "Vinculación desactivada: el enlace mirror funciona en cualquier dispositivo."
            )
        return schemas.PeerUpdated(**msgspec.structs.asdict(peers.view(peer)), message=message)

    @get("/network/{peer_id:str}", operation_id="serversForPeer")
    async def servers_for_peer(
        self, peers: Peers, db: DB, customer: Customer, peer_id: FromPath[str]
    ) -> list[schemas.ServerOption]:
        return await peers.available_servers(db, customer.user_id, peer_id)


class MirrorController(Controller):
    """`GET /mirror/{token}`: the game-connect client fetches the current configuration without logging in."""

    path = "/mirror"
    tags = ["mirror"]

    @get(
        "/{token:str}",
        operation_id="mirrorConfig",
        media_type=MediaType.TEXT,
        # The game-connect client may add query parameters of its own (docs/api.md, "Query strings").
        opt={"maintenance_exempt": True, "errors": (400, 409, 429), **LOOSE_QUERY},
        responses={304: ResponseSpec(None, description="Sin cambios desde el ETag enviado en If-None-Match")},
    )
    async def mirror(
        self,
        request: Request[Any, Any, Any],
        settings: SettingsDep,
        limiter: Limiter,
        box: Box,
        peers: Peers,
        hub: Hub,
        sessionmaker: Sessionmaker,
        db: DB,
        ip: ClientIP,
        token: FromPath[str],
    ) -> Response[str]:
        limits = settings.rate_limits
        # An address that keeps guessing tokens is refused outright, so a lucky guess cannot be told apart.
        await limiter.check(f"mirror-miss:ip:{ip}", limits.mirror_misses_per_address)
        peer = await peers.by_mirror_token(db, token) if len(token) <= 128 else None
        if peer is None:
            await limiter.hit(f"mirror-miss:ip:{ip}", limits.mirror_misses_per_address)
            raise NotFound("Enlace no encontrado.", code="mirror_not_found")
        # The token's budget is spent there, by device: a stranger's fetches never spend the bound device's.
        await mirror_binding.admit(
            sessionmaker, box, limiter, limits, peers, hub, peer, request.headers.get(mirror_binding.DEVICE_HEADER)
        )
        text = peers.config_text(peer)
        etag = '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'
        headers = {
            "ETag": etag,
            # The configuration holds the private key: never kept by a cache (clients keep the ETag themselves).
            "Cache-Control": "no-store",
            "Content-Disposition": content_disposition("inline", peer.name),
        }
        if request.headers.get("if-none-match") == etag:
            return Response("", status_code=304, headers=headers)
        return Response(text, media_type=MediaType.TEXT, headers=headers)


class AdminPeerController(Controller):
    path = "/api/admin/peers"
    tags = ["admin"]

    @get("/", operation_id="adminSearchPeers", guards=[admin_or_support])
    async def search(
        self,
        db: DB,
        q: staff_schemas.Search = "",
        server: Annotated[str, QueryParameter(max_length=64)] = "",
        active: Annotated[bool | None, QueryParameter()] = None,
        page: staff_schemas.Page = 1,
        page_size: staff_schemas.PageSize = 25,
    ) -> staff_schemas.PeerPage:
        return await search_peers(db, q, server, active, page, page_size)

    @post("/", status_code=201, operation_id="adminCreatePeer", guards=[admin_only])
    async def create_peer(
        self, accounts: Accounts, servers: Servers, peers: Peers, audit: Audit, db: DB, staff: Staff, ip: ClientIP,
        data: JSONBody[staff_schemas.PeerCreate],
    ) -> staff_schemas.StaffPeer:  # fmt: skip
        user = await accounts.find_by_username(db, data.username)
        if user is None or user.role is not Role.CUSTOMER:
            raise NotFound("Cliente no encontrado.", code="user_not_found")
        server = await servers.get(db, data.server) if data.server else None
        expiration = utcnow() + timedelta(days=data.days) if data.days else None
        peer = await peers.create(db, user.id, data.name, server=server, expiration_date=expiration)
        await audit.record(
            db, staff, ip, AuditAction.PEER_CREATE, "peer", peer.id,
            f"Peer {peer.name} de {user.username} en {peer.server.name}"
            + (f", {data.days} días" if data.days else ", sin vencimiento"),
        )  # fmt: skip
        # The staff view: no mirror link, keys stay out (docs/security.md, "staff views").
        return await staff_peer(db, peer)

    @patch("/{peer_id:str}", operation_id="adminUpdatePeer", guards=[admin_only])
    async def update(
        self, peers: Peers, audit: Audit, db: DB, staff: Staff, ip: ClientIP, peer_id: FromPath[str],
        data: JSONBody[staff_schemas.PeerPatch],
    ) -> staff_schemas.StaffPeer:  # fmt: skip
        if data.active is None and data.manual_payment is None and data.name is None:
            raise Invalid("Indique 'name', 'active' o 'manual_payment'.", code="nothing_to_change")
        peer = await peers.by_id(db, peer_id)
        changes: dict[str, object] = {}
        if data.name is not None:
            old_name = peer.name
            peer = await peers.rename(db, peer.user_id, peer.id, data.name, STAFF_NAME_TAKEN)
            if peer.name != old_name:
                await audit.record(
                    db, staff, ip, AuditAction.PEER_RENAME, "peer", peer.id, f"Peer {old_name} renombrado a {peer.name}"
                )
            if data.active is None and data.manual_payment is None:
                return await staff_peer(db, peer)
        if data.manual_payment is not None:
            peer.manual_payment = data.manual_payment
            changes["manual_payment"] = data.manual_payment
        if data.active is not None:
            message = None if data.active else f"El peer {peer.name} fue deshabilitado por un administrador."
            await peers.set_active(db, peer, data.active, message, by_staff=True)
            changes["active"] = data.active
        summary = staff_schemas.changes_text(changes)
        await audit.record(db, staff, ip, AuditAction.PEER_UPDATE, "peer", peer.id, f"{peer.name}: {summary}")
        return await staff_peer(db, peer)

    @post("/{peer_id:str}/move", status_code=202, operation_id="adminMovePeer", guards=[admin_or_support])
    async def move(
        self, peers: Peers, audit: Audit, db: DB, staff: Staff, ip: ClientIP, peer_id: FromPath[str],
        data: JSONBody[staff_schemas.PeerMove],
    ) -> staff_schemas.StaffPeer:  # fmt: skip
        """The customer's own change-server path: the owner's browsers hear the outcome as usual."""
        peer = await peers.by_id(db, peer_id)
        origin = peer.server.name
        peer = await peers.change_server(db, peer.user_id, peer.id, data.server)
        # The move is pending until the new node confirms (docs/operations.md): the peer still shows its old server.
        target = await db.get_one(Server, peer.pending_server_id)
        await audit.record(
            db, staff, ip, AuditAction.PEER_MOVE, "peer", peer.id, f"{peer.name}: de {origin} a {target.name}"
        )
        return await staff_peer(db, peer)

    @post("/{peer_id:str}/plans", status_code=200, operation_id="adminExtendPeer", guards=[admin_only])
    async def extend(
        self, peers: Peers, audit: Audit, db: DB, staff: Staff, ip: ClientIP, peer_id: FromPath[str],
        data: JSONBody[staff_schemas.PeerExtend],
    ) -> staff_schemas.StaffPeer:  # fmt: skip
        peer = await peers.by_id(db, peer_id)
        plan = await get_plan(db, data.plan)
        await peers.add_plan(db, peer, plan.id, plan.name, plan.price, plan.validity_hours)
        until = f"hasta el {peer.expiration_date:%d/%m/%Y %H:%M} UTC" if peer.expiration_date else "sin vencimiento"
        await audit.record(
            db,
            staff,
            ip,
            AuditAction.PEER_EXTEND,
            "peer",
            peer.id,
            f"{peer.name}: plan {plan.name} ({plan.price} USD), {until}",
        )
        return await staff_peer(db, peer)
