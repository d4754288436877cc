"""Property-based fuzzing of the whole HTTP API from its own OpenAPI document (schemathesis, in-process ASGI).

Every operation the app documents gets generated requests, valid and invalid, as a customer (client routes) or
an admin (admin routes). Two properties: never a 5xx, and every answer matches the document (status declared,
body of the declared schema, error bodies `{message, code, fields?}`). New endpoints are covered without edits.
The example budget is bounded so the suite fits CI (VPN_FUZZ_EXAMPLES raises it for a deeper local run).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from litestar import Litestar
from schemathesis.config._checks import NegativeDataRejectionConfig
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from controlplane.app import create_app
from controlplane.domain.accounts.models import Role
from controlplane.domain.accounts.schemas import LoginRequest
from controlplane.domain.accounts.sessions import ADMIN, CLIENT
from controlplane.domain.invoices.schemas import InvoiceRequest
from controlplane.domain.plans.service import add_plan
from controlplane.services import build_services
from controlplane.settings import Settings
from tests.api.conftest import _empty_database, make_settings
from tests.api.factories import PASSWORD
from tests.fakes.gateways import gateway_settings
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita

EXAMPLES = int(os.environ.get("VPN_FUZZ_EXAMPLES", "25"))


class World:
    """What the fuzzer acts as and on: tokens for a customer and an admin, and a real peer of that customer."""

    customer: dict[str, str]
    admin: dict[str, str]
    peer_id: str
    server_id: str
    remote_id: str


async def _seed(settings: Settings) -> World:
    services = build_services(settings)
    world = World()
    try:
        await _empty_database(services)
        async with services.sessionmaker.begin() as db:
            customer = await services.accounts.create_user(db, "fuzz_cliente", PASSWORD, Role.CUSTOMER)
            await services.accounts.create_user(db, "fuzz_admin", PASSWORD, Role.ADMIN)
        from tests.api.factories import make_peer, make_server

        server = await make_server(services, "Fuzz 1", "10.77.0.0/24")
        await make_server(services, "Fuzz 2", "10.78.0.0/24")
        peer = await make_peer(services, customer, "fuzzpeer", server)
        world.peer_id, world.server_id = peer.id, server.id
        async with services.sessionmaker.begin() as db:
            await services.switches.update(db, {"allow_payments_qvapay": True, "allow_payments_remesita": True})
        async with services.sessionmaker.begin() as db:
            plan = await add_plan(db, "Mensual", 720, Decimal("5.00"), "Un dispositivo")
        async with services.sessionmaker() as db:
            request = InvoiceRequest(plan=plan.id, mode="new_peer", peer="fuzzpeer2")
            invoice = await services.invoices.open(db, customer.id, request, await services.switches.current())
            invoice = await services.invoices.start_payment(db, invoice)
            world.remote_id = invoice.remote_id
        for username, audience, attr in (("fuzz_cliente", CLIENT, "customer"), ("fuzz_admin", ADMIN, "admin")):
            access, _ = await services.accounts.login(
                LoginRequest(username=username, password=PASSWORD), audience, "192.0.2.1"
            )
            setattr(world, attr, {"Authorization": f"Bearer {access}"})
    finally:
        await services.close()
    return world


@pytest.fixture(scope="module")
def fuzz_target(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Litestar, World]]:
    # The app owns its services: schemathesis starts its lifespan once on its own event-loop thread.
    # Payments go to local fake gateways (their documented contracts), so purchases and notifications run for real.
    with FakeQvaPay() as qvapay, FakeRemesita() as remesita:
        cfg = make_settings(database_url, tmp_path_factory.mktemp("fuzz"), **gateway_settings(qvapay, remesita))
        world = asyncio.run(_seed(cfg))
        yield create_app(settings=cfg), world


def _document() -> dict[str, Any]:
    """The OpenAPI document as the app serves it (building the app starts nothing: no database, no key file)."""
    app = create_app(settings=Settings(database_url="sqlite+aiosqlite://", secret_key_file=Path("/nonexistent")))
    return app.openapi_schema.to_schema()


schema = schemathesis.openapi.from_dict(_document())
# A body over the size limit is refused with 413 before it is read (docs/security.md): a refusal like any other.
_rejection = schema.config.checks.negative_data_rejection
schema.config.checks.negative_data_rejection = NegativeDataRejectionConfig(
    expected_statuses=[*_rejection.expected_statuses, "413"]
)
# Schema-valid but refused input is fine: business rules (username pattern, blank after trimming, peer names) go
# beyond what the document can say, and each answers 422 with its Spanish message. `allow_header_conformance` holds
# (controlplane/allow_header.py). `negative_data_rejection` holds: bodies are decoded strictly (controlplane/
# requests.py) and query strings read strictly (controlplane/query_params.py), but for the few routes third parties
# call with parameters of their own (payment gateways, the mirror link), which stay lenient on purpose.
EXCLUDED = [positive_data_acceptance]


def _loose_query_operations() -> set[tuple[str, str]]:
    """(method, path) of the operations marked `loose_query`: they accept query parameters they do not declare."""
    from litestar.routes import HTTPRoute

    app = create_app(settings=Settings(database_url="sqlite+aiosqlite://", secret_key_file=Path("/nonexistent")))
    return {
        (method, route.path_format)
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if handler.opt.get("loose_query")
        for method in handler.http_methods
    }


LOOSE_QUERY = _loose_query_operations()
OPEN_SWITCHES = {
    "maintenance": False,
    "allow_registration": True,
    "allow_password_recovery": True,
    "allow_email": True,
    "allow_partys": True,
    "allow_payments_qvapay": True,
    "allow_payments_remesita": True,
}


def _reset_switches(app: Litestar, world: World) -> None:
    from schemathesis.python import asgi

    with asgi.get_client(app) as client:
        answer = client.patch("http://testserver/api/admin/switches", json=OPEN_SWITCHES, headers=world.admin)
        assert answer.status_code == 200, answer.text


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_api_answers_match_its_document(case: Any, fuzz_target: tuple[Litestar, World]) -> None:
    app, world = fuzz_target
    # Half the generated ids are swapped for real objects, so bodies are also tried against things that exist.
    for name, real in (("peer_id", world.peer_id), ("server_id", world.server_id), ("remote_id", world.remote_id)):
        value = (case.path_parameters or {}).get(name)
        if isinstance(value, str) and len(value) % 2 == 0:
            case.path_parameters[name] = real
    headers = world.admin if case.operation.path.startswith("/api/admin") else world.customer
    if _drops_required_authorization(case):
        # A negative case that leaves out the Authorization header the document requires must be refused (401):
        # adding the world's token would turn it into an accepted request schemathesis counts as a failure.
        headers = {}
    case.operation.schema.app = app  # checks that send follow-up requests (e.g. without auth) reach it too
    excluded = list(EXCLUDED)
    if (case.method.upper(), case.operation.path) in LOOSE_QUERY:
        excluded.append(negative_data_rejection)
    case.call_and_validate(app=app, headers=headers, excluded_checks=excluded)
    if case.operation.path == "/api/admin/switches" and case.method == "PATCH":
        # Maintenance (503 everywhere) or closed registration would hide every later case: switch back.
        _reset_switches(app, world)


def _drops_required_authorization(case: Any) -> bool:
    required = any(p.name.lower() == "authorization" and p.is_required for p in case.operation.headers)
    return required and "authorization" not in {name.lower() for name in (case.headers or {})}


def test_a_nul_character_is_invalid_input_not_a_crash(fuzz_target: tuple[Litestar, World]) -> None:
    """Found by the fuzzer on PostgreSQL, which refuses NUL in text: it answered 500 from the audit search."""
    from schemathesis.python import asgi

    app, world = fuzz_target
    with asgi.get_client(app) as client:
        audit = client.get("http://testserver/api/admin/audit", params={"actor": "a\x00b"}, headers=world.admin)
        login = client.post("http://testserver/api/client/login", json={"username": "a\x00b", "password": "x"})
    for answer in (audit, login):
        assert answer.status_code < 500, answer.text
        if answer.status_code == 422:
            assert answer.json()["code"] == "invalid"


def test_options_lists_exactly_the_documented_methods(fuzz_target: tuple[Litestar, World]) -> None:
    """Litestar's automatic OPTIONS answer listed one handler's method where a path has several (GET but not PATCH
    of /api/client/settings); now `Allow` says what the document says."""
    import re

    from schemathesis.python import asgi

    app, _ = fuzz_target
    wrong = {}
    with asgi.get_client(app) as client:
        for path, item in _document()["paths"].items():
            answer = client.options("http://testserver" + re.sub(r"\{\w+\}", "x", path))
            allow = {m.strip() for m in answer.headers.get("allow", "").split(",") if m.strip()}
            documented = {m.upper() for m in item if m in {"get", "post", "put", "patch", "delete"}} | {"OPTIONS"}
            if allow != documented:
                wrong[path] = (sorted(allow), sorted(documented))
    assert wrong == {}
