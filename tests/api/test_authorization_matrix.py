"""Authorization matrix: every endpoint of the app x anonymous, owner, another customer, support, admin.

The routes come from the app itself; `test_every_route_has_a_declared_expectation` FAILS when a route has no row
in MATRIX (or a row names a route that is gone). Whoever adds an endpoint declares here who may call it.

Each row is run against a fresh world: the owner's objects (peer, mirror token) fill the path. Roles run in the
order anonymous, other, support, admin, owner, and for the first three the owner's rows in the database must come
out unchanged and the owner's identifiers must not appear in their answers (404 for other users' objects, never
their data). Statuses follow docs/api.md: 401 without a session, 403 for the wrong area or a support account on an
admin-only change, 404 for what is not yours.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import jwt
import pytest
from litestar.routes import HTTPRoute, WebSocketRoute
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.app import create_app
from controlplane.domain.accounts.models import LoginSession, Role, User
from controlplane.domain.invoices.models import Invoice, InvoiceMode
from controlplane.domain.peers.models import Peer
from controlplane.services import Services
from controlplane.settings import Settings
from tests.api.factories import PASSWORD, bearer, login, make_peer, make_server, make_user
from tests.fakes.captcha import GOOD_TOKEN

ROLES = ("anonymous", "other", "support", "admin", "owner")  # the owner last: its calls may change things
# "Let through": the role passes authorization; what the handler then says of the (empty) body or unknown id is
# not this suite's business (the fuzzer's), as long as it is neither 401/403 nor a 5xx.
LET = -1
OWNER = "propietaria1"


@dataclass
class World:
    headers: dict[str, dict[str, str]]
    peer_id: str
    other_peer_id: str
    server_id: str
    second_server_id: str
    mirror_token: str
    owner_public_key: str
    invoice_remote_id: str
    invoice_id: str = ""
    owner_id: str = ""
    room_id: str = ""
    free_peer_id: str = ""
    owner_session_id: str = ""

    def secrets_of_owner(self) -> list[str]:
        return [self.peer_id, self.mirror_token, self.owner_public_key, OWNER, self.owner_session_id]


# How each path parameter is filled: always with the OWNER's object (or a shared one, for servers).
PATH_PARAMS: dict[str, Callable[[World], str]] = {
    "peer_id": lambda w: w.peer_id,
    "server_id": lambda w: w.server_id,
    "token": lambda w: w.mirror_token,
    "remote_id": lambda w: w.invoice_remote_id,
    "room_id": lambda w: w.room_id,
    "user_id": lambda w: w.owner_id,
    "session_id": lambda w: w.owner_session_id,
    "invoice_id": lambda w: w.invoice_id,
    "plan_id": lambda w: "plan-desconocido",
    "announcement_id": lambda w: "anuncio-desconocido",
    "release_id": lambda w: "version-desconocida",
    "link_id": lambda w: "enlace-desconocido",
}

Body = Callable[[World, str], Any] | None


@dataclass(frozen=True)
class Rule:
    """Expected status per role; `body(world, role)` gives a valid body (role-specific where names must differ)."""

    anonymous: int
    owner: int
    other: int
    support: int
    admin: int
    body: Body = None
    public_data: bool = False  # answers may carry the owner's data by design (mirror link by its secret token)
    extra_checks: tuple[Callable[[str, Any], None], ...] = field(default=())


def customer_only(ok: int, body: Body = None, *, object_of_owner: bool = False) -> Rule:
    return Rule(401, ok, 404 if object_of_owner else ok, 403, 403, body)


def staff_read() -> Rule:
    return Rule(401, 403, 403, 200, 200)


def admin_only(ok: int, body: Body = None) -> Rule:
    return Rule(401, 403, 403, 403, ok, body)


def manager(*, support: bool, body: Body = None) -> Rule:
    """Manager API: customers never (403 staff_only); support where the route's guard is `admin_or_support`."""
    return Rule(401, 403, 403, LET if support else 403, LET, body)


def everyone(status: int, body: Body = None, *, public_data: bool = False) -> Rule:
    return Rule(status, status, status, status, status, body, public_data)


MATRIX: dict[tuple[str, str], Rule] = {
    # Public configuration and sessions: the same answer whoever asks (a token changes nothing).
    ("GET", "/api/client"): everyone(200),
    ("GET", "/api/client/status"): everyone(200),
    ("GET", "/api/client/plans"): everyone(200),
    ("POST", "/api/client/login"): everyone(200, lambda w, r: {"username": f"otra_{r}", "password": PASSWORD}),
    # A customer's name on the staff login fails for every role: from the fourth the account asks for a captcha.
    ("POST", "/api/admin/login"): everyone(
        401, lambda w, r: {"username": OWNER, "password": PASSWORD, "captcha_token": GOOD_TOKEN}
    ),
    ("PUT", "/api/client/register"): everyone(
        201, lambda w, r: {"username": f"nuevo_{r}", "password": PASSWORD, "captcha_token": GOOD_TOKEN}
    ),
    ("POST", "/api/client/password-recovery"): everyone(200, lambda w, r: {"username": OWNER}),
    ("POST", "/api/client/password-reset"): everyone(400, lambda w, r: {"token": "x" * 43, "password": PASSWORD}),
    ("POST", "/api/client/verify-email"): everyone(400, lambda w, r: {"token": "x" * 43}),
    ("POST", "/api/refresh-token"): everyone(401, lambda w, r: {"refresh": "x" * 43}),
    ("POST", "/api/logout"): everyone(200, lambda w, r: {}),
    ("GET", "/mirror/{token}"): everyone(200, public_data=True),
    # Payments: buying is the customer's; an invoice is its owner's (404 to others). Gateways call without a session
    # and are believed only with a valid signature or secret URL (401 otherwise, whatever token is sent).
    ("PUT", "/api/client/invoices"): customer_only(
        409, lambda w, r: {"plan": "x", "mode": "new_peer", "peer": "nuevo"}
    ),
    ("GET", "/api/client/invoices"): customer_only(200),
    ("GET", "/api/client/invoices/{remote_id}"): customer_only(200, object_of_owner=True),
    ("GET", "/api/payments/return/{remote_id}"): everyone(302),
    # Payment links: made and revoked by a customer for their own peer (another's peer or link answers 404); the
    # payer's page and payment need no session, and a token that names no link is 404 whoever asks.
    ("POST", "/api/client/payment-links"): Rule(
        401, 404, 404, 403, 403, lambda w, r: {"peer": w.peer_id, "plan": "plan-desconocido"}
    ),
    ("GET", "/api/client/payment-links"): customer_only(200),
    ("DELETE", "/api/client/payment-links/{link_id}"): Rule(401, 404, 404, 403, 403),
    ("GET", "/api/public/payment-links/{token}"): everyone(404),
    ("POST", "/api/public/payment-links/{token}/pay"): everyone(404, lambda w, r: {}),
    # Guest passes: bought by a room's owner (another's room answers 404), claimed by any customer with the link;
    # the claim page's read needs no session, and a token that names no pass is 404 whoever asks.
    ("GET", "/api/client/guest-passes/plans"): customer_only(200),
    ("GET", "/api/client/guest-passes"): customer_only(200),
    ("POST", "/api/client/guest-passes"): Rule(
        401, 404, 404, 403, 403, lambda w, r: {"party": w.room_id, "plan": "plan-desconocido"}
    ),
    ("POST", "/api/client/guest-passes/claim/{token}"): Rule(401, 404, 404, 403, 403, lambda w, r: {}),
    ("GET", "/api/public/guest-passes/{token}"): everyone(404),
    ("POST", "/api/payments/qvapay/webhook"): everyone(401, lambda w, r: {"transaction_uuid": "x", "remote_id": "y"}),
    ("POST", "/api/payments/remesita/{remote_id}"): everyone(401, lambda w, r: {"reference": "x"}),
    # Operations: liveness and readiness for load balancers; metrics only from loopback or with the metrics token
    # (the test client is not loopback and no token is set: the same 404 for everyone, bearer tokens change nothing).
    ("GET", "/healthz"): everyone(200),
    ("GET", "/readyz"): everyone(200),
    ("GET", "/metrics"): everyone(404),
    # The customer area: staff accounts are turned away (403 customer_only), other customers see nothing of ours.
    ("GET", "/api/client/verify-token"): customer_only(200),
    ("GET", "/api/client/settings"): customer_only(200),
    ("PATCH", "/api/client/settings"): customer_only(200, lambda w, r: {"alias": f"alias_{r}"}),
    ("DELETE", "/api/client/settings"): customer_only(200),
    # Deleting an account acts on the caller's own only; a wrong password deletes nothing (422 for everyone).
    ("POST", "/api/client/settings/delete-account"): customer_only(422, lambda w, r: {"password": "no-es-la-clave"}),
    # The owner's sessions: each customer lists and closes its own; the owner's session is nobody else's to close
    # (404), and the owner closing the session it calls from needs no password (a logout).
    ("GET", "/api/client/sessions"): customer_only(200),
    ("DELETE", "/api/client/sessions/{session_id}"): customer_only(200, object_of_owner=True),
    ("POST", "/api/client/sessions/close-others"): customer_only(200, lambda w, r: {"password": PASSWORD}),
    ("GET", "/api/client/advertisements"): customer_only(200),
    ("GET", "/api/client/agent"): customer_only(404),  # no release published: the same 404 for every customer
    ("GET", "/api/client/accounts/peers"): customer_only(200),
    ("GET", "/api/client/accounts/peers/{peer_id}"): customer_only(200, object_of_owner=True),
    # Usage history (docs/usage.md): a peer's series is its owner's; the month's totals list the caller's own peers.
    ("GET", "/api/client/accounts/peers/{peer_id}/usage"): customer_only(200, object_of_owner=True),
    ("GET", "/api/client/accounts/usage"): customer_only(200),
    ("PATCH", "/api/client/accounts/peers/{peer_id}"): customer_only(
        200, lambda w, r: {"operation": "regenerate_token"}, object_of_owner=True
    ),
    ("GET", "/api/client/network/{peer_id}"): customer_only(200, object_of_owner=True),
    # The admin area: customers get 403 staff_only; support reads, only admins change.
    ("GET", "/api/admin/verify-token"): staff_read(),
    ("GET", "/api/admin/switches"): staff_read(),
    ("PATCH", "/api/admin/switches"): admin_only(200, lambda w, r: {"allow_email": True}),
    ("GET", "/api/admin/servers"): staff_read(),
    ("POST", "/api/admin/servers"): admin_only(
        201,
        lambda w, r: {
            "name": f"Nuevo {r}",
            "address": f"{r}.vpn.test",
            "tunnel_subnet": "10.99.0.0/24",
            "ubication": "Miami",
        },
    ),
    ("POST", "/api/admin/servers/{server_id}/credential"): admin_only(201),
    ("POST", "/api/admin/peers"): admin_only(201, lambda w, r: {"username": OWNER, "name": f"extra_{r}"}),
    ("PATCH", "/api/admin/peers/{peer_id}"): manager(support=False, body=lambda w, r: {}),
    # Manager API (issue 7): support reads and helps customers; money, plans, servers and content are admin-only.
    ("GET", "/api/admin/users"): manager(support=True),
    ("GET", "/api/admin/users/{user_id}"): manager(support=True),
    ("PATCH", "/api/admin/users/{user_id}"): manager(support=True, body=lambda w, r: {}),
    # The admin (before the owner) deletes the owner's account: the owner's session has ended when its turn comes.
    ("DELETE", "/api/admin/users/{user_id}"): Rule(401, 401, 403, 403, 200),
    ("POST", "/api/admin/users/{user_id}/password-reset"): manager(support=True, body=lambda w, r: {}),
    ("POST", "/api/admin/users/{user_id}/verification"): manager(support=True, body=lambda w, r: {}),
    ("GET", "/api/admin/peers"): manager(support=True),
    ("POST", "/api/admin/peers/{peer_id}/move"): manager(support=True, body=lambda w, r: {}),
    ("POST", "/api/admin/peers/{peer_id}/plans"): manager(support=False, body=lambda w, r: {}),
    ("GET", "/api/admin/plans"): manager(support=True),
    ("POST", "/api/admin/plans"): manager(support=False, body=lambda w, r: {}),
    ("PATCH", "/api/admin/plans/{plan_id}"): manager(support=False, body=lambda w, r: {}),
    ("GET", "/api/admin/announcements"): manager(support=True),
    ("POST", "/api/admin/announcements"): manager(support=False, body=lambda w, r: {}),
    ("PATCH", "/api/admin/announcements/{announcement_id}"): manager(support=False, body=lambda w, r: {}),
    ("DELETE", "/api/admin/announcements/{announcement_id}"): manager(support=False),
    ("GET", "/api/admin/client-releases"): manager(support=True),
    ("POST", "/api/admin/client-releases"): manager(support=False, body=lambda w, r: {}),
    ("DELETE", "/api/admin/client-releases/{release_id}"): manager(support=False),
    ("GET", "/api/admin/overview"): manager(support=True),
    ("GET", "/api/admin/audit"): manager(support=True),
    ("GET", "/api/admin/invoices"): manager(support=True),
    ("GET", "/api/admin/invoices/{invoice_id}"): manager(support=True),
    ("POST", "/api/admin/invoices/{invoice_id}/manual-payment"): manager(support=False, body=lambda w, r: {}),
    ("GET", "/api/admin/servers/{server_id}"): manager(support=True),
    ("PATCH", "/api/admin/servers/{server_id}"): manager(support=False, body=lambda w, r: {}),
    ("DELETE", "/api/admin/servers/{server_id}/credential"): manager(support=False),
    # Rooms (issue 4): a room is its members'; another customer's room answers 404 like a missing one.
    ("GET", "/api/client/network/partys"): customer_only(200),
    ("POST", "/api/client/network/partys"): customer_only(
        201, lambda w, r: {"name": f"sala_{r}", "peer": w.other_peer_id if r == "other" else w.free_peer_id}
    ),
    ("PATCH", "/api/client/network/partys"): customer_only(
        LET, lambda w, r: {"operation": "join", "name": "sala-propietaria", "password": "no-es", "peer": w.free_peer_id}
    ),
    ("PATCH", "/api/client/network/partys/{room_id}"): customer_only(
        200, lambda w, r: {"operation": "regenerate_password"}, object_of_owner=True
    ),
    ("GET", "/api/client/network/partys/{room_id}"): customer_only(200, object_of_owner=True),  # with its lobby
    ("DELETE", "/api/client/network/partys/{room_id}"): customer_only(200, object_of_owner=True),
    # The room's best server (docs/rooms.md): the owner's move without a server stops at 422, after the ownership.
    ("GET", "/api/client/network/partys/{room_id}/servers"): customer_only(200, object_of_owner=True),
    ("POST", "/api/client/network/partys/{room_id}/move"): customer_only(
        422, lambda w, r: {"server": ""}, object_of_owner=True
    ),
}

WEBSOCKETS = {"/ws"}  # covered by test_socket.py / test_abuse.py; a new socket path must be declared here too
SKIPPED_PREFIXES = ("/api/schema",)  # the OpenAPI document and its viewer: public, read-only
SPA_PATHS = {"/", "/{path}"}  # the built web client and its fallback (static files, never data)


def _app_routes() -> tuple[set[tuple[str, str]], set[str]]:
    app = create_app(settings=Settings(database_url="sqlite+aiosqlite://", secret_key_file=Path("/nonexistent")))
    http: set[tuple[str, str]] = set()
    sockets: set[str] = set()
    for route in app.routes:
        if isinstance(route, WebSocketRoute):
            sockets.add(route.path)
            continue
        if not isinstance(route, HTTPRoute) or route.path.startswith(SKIPPED_PREFIXES):
            continue
        if (route.path_format or "/") in SPA_PATHS:
            continue
        for handler in route.route_handlers:
            for method in handler.http_methods:
                if method in {"HEAD", "OPTIONS"}:
                    continue
                http.add((method, route.path_format or "/"))
    return http, sockets


def test_every_route_has_a_declared_expectation() -> None:
    http, sockets = _app_routes()
    undeclared = sorted(http - MATRIX.keys())
    stale = sorted(MATRIX.keys() - http)
    assert not undeclared, f"routes without a row in MATRIX (declare who may call them): {undeclared}"
    assert not stale, f"MATRIX rows for routes that no longer exist: {stale}"
    assert sockets == WEBSOCKETS, f"websocket routes changed: {sorted(sockets)}; declare them in WEBSOCKETS"


async def _world(services: Services, client: AsyncTestClient[Any]) -> World:
    owner = await make_user(services, OWNER, alias="Propietaria")
    other = await make_user(services, "otra_other", alias="Otra")
    for role in ROLES:  # accounts the login row signs in with
        if role != "other":
            await make_user(services, f"otra_{role}")
    await make_user(services, "soporte", role=Role.SUPPORT)
    await make_user(services, "jefa", role=Role.ADMIN)
    server = await make_server(services, "Miami 1", "10.8.0.0/24")
    second = await make_server(services, "Miami 2", "10.9.0.0/24")
    peer = await make_peer(services, owner, "movil", server)
    other_peer = await make_peer(services, other, "portatil", server)
    async with services.sessionmaker() as db:
        mirror = services.peers.mirror_link(await services.peers.by_id(db, peer.id)).rsplit("/", 1)[1]
    async with services.sessionmaker.begin() as db:
        invoice = Invoice(
            remote_id="factura-de-la-propietaria",
            user_id=owner.id,
            gateway="qvapay",
            mode=InvoiceMode.NEW_PEER,
            plan_name="Mensual",
            validity_hours=720,
            amount=Decimal("5.00"),
            peer_name="tablet",
        )
        db.add(invoice)
    headers = {
        "anonymous": {},
        "owner": bearer(await login(client, OWNER)),
        "other": bearer(await login(client, "otra_other")),
        "support": bearer(await login(client, "soporte", admin=True)),
        "admin": bearer(await login(client, "jefa", admin=True)),
    }
    world = World(headers, peer.id, other_peer.id, server.id, second.id, mirror, peer.public_key, invoice.remote_id)
    world.invoice_id, world.owner_id = invoice.id, owner.id
    owner_token = headers["owner"]["Authorization"].removeprefix("Bearer ")
    world.owner_session_id = jwt.decode(owner_token, options={"verify_signature": False})["sid"]
    world.free_peer_id = (await make_peer(services, owner, "libre", server)).id
    async with services.sessionmaker.begin() as db:
        room = await services.rooms.create(db, owner.id, "sala-propietaria", peer.id)
        world.room_id = room.id
    return world


async def _owner_rows(services: Services) -> list[dict[str, Any]]:
    """Everything of the owner's that another caller must not be able to change."""
    async with services.sessionmaker() as db:
        user = (await db.execute(select(User).where(User.username == OWNER))).scalar_one()
        peers = (await db.execute(select(Peer).where(Peer.user_id == user.id).order_by(Peer.id))).scalars().all()
        rows = [{c.key: getattr(user, c.key) for c in User.__table__.columns}]
        rows += [{c.key: getattr(p, c.key) for c in Peer.__table__.columns} for p in peers]
        sessions = await db.execute(
            select(LoginSession.id, LoginSession.revoked_at).where(LoginSession.user_id == user.id)
        )
        rows += [{"session": session_id, "revoked_at": revoked} for session_id, revoked in sessions.all()]
    return rows


@pytest.mark.parametrize("route", sorted(MATRIX), ids=lambda r: f"{r[0]} {r[1]}")
async def test_route_answers_each_role_as_declared(
    route: tuple[str, str], services: Services, client: AsyncTestClient[Any]
) -> None:
    method, template = route
    rule = MATRIX[route]
    world = await _world(services, client)
    path = template
    for name, fill in PATH_PARAMS.items():
        path = path.replace("{" + name + "}", fill(world))
    assert "{" not in path, f"no filler for a path parameter of {template}: add it to PATH_PARAMS"
    before = await _owner_rows(services)
    for role in ROLES:
        kwargs: dict[str, Any] = {"headers": world.headers[role], "follow_redirects": False}
        if rule.body is not None:
            kwargs["json"] = rule.body(world, role)
        answer = await client.request(method, path, **kwargs)
        expected = getattr(rule, role)
        if expected == LET:
            assert answer.status_code not in {401, 403} and answer.status_code < 500, (
                f"{method} {template} as {role} was not let through: {answer.status_code} {answer.text}"
            )
        else:
            assert answer.status_code == expected, f"{method} {template} as {role}: {answer.status_code} {answer.text}"
        if answer.status_code >= 400:
            body = answer.json()
            assert body["message"] and body["code"], answer.text  # the error shape, in every refusal
        if role in {"anonymous", "other", "support"} and expected != LET:
            if not rule.public_data:
                for secret in world.secrets_of_owner():
                    assert secret not in answer.text, f"{method} {template} as {role} leaks the owner's {secret!r}"
            assert await _owner_rows(services) == before, f"{method} {template} as {role} changed the owner's data"
