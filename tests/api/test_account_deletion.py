"""Deleting an account (docs/security.md, "Deleting an account"): by its owner with their password, or by an admin.
Every session ends and its sockets close with 4401; peers leave their rooms and their nodes; owned rooms go whole;
invoices and the audit log stay, pointing at an account row emptied of personal data. Across two processes:
tests/multiprocess/test_sockets.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from litestar.testing import AsyncTestClient, TestClient
from sqlalchemy import func, select

from controlplane.app import create_app
from controlplane.domain.accounts.models import LoginSession, RefreshToken, Role, User
from controlplane.domain.invoices.models import Invoice, InvoiceMode, InvoiceStatus
from controlplane.domain.peers.models import Peer
from controlplane.domain.plans.service import add_plan
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.services import Services
from tests.api.factories import PASSWORD, add_plan_invoice, bearer, login, make_peer, make_server, make_user
from tests.api.test_rooms import ROOMS, create, join, node_answers, person
from tests.api.test_session_sockets import _assert_closed, _assert_open, _greeted, _login

DELETE = "/api/client/settings/delete-account"


@pytest.fixture
def sync_client(services: Services) -> Iterator[TestClient[Any]]:
    with TestClient(app=create_app(services=services)) as http:
        yield http


async def _user(services: Services, user_id: str) -> User:
    async with services.sessionmaker() as db:
        user = await db.get(User, user_id)
        assert user is not None
        return user


async def test_a_wrong_or_missing_password_deletes_nothing(services: Services, client: AsyncTestClient[Any]) -> None:
    ana = await make_user(services, "ana", email="ana@example.test")
    await make_peer(services, ana, "movil", await make_server(services, "Miami 1", "10.8.0.0/24"))
    headers = bearer(await login(client, "ana"))
    wrong = await client.post(DELETE, json={"password": "no-es-esta"}, headers=headers)
    assert wrong.status_code == 422
    assert wrong.json() == {
        "message": "La contraseña actual no es correcta.",
        "code": "wrong_password",
        "fields": {"password": "Incorrecta."},
    }
    blank = await client.post(DELETE, json={"password": ""}, headers=headers)
    assert blank.status_code == 422 and blank.json()["message"] == "Escriba su contraseña para confirmar."
    missing = await client.post(DELETE, json={}, headers=headers)
    assert missing.status_code == 422 and missing.json()["message"] == "Contraseña: campo obligatorio."
    # Nothing happened: the session, the peer and the account are as they were.
    settings = await client.get("/api/client/settings", headers=headers)
    assert settings.status_code == 200 and settings.json()["email"] == "ana@example.test"
    assert len((await client.get("/api/client/accounts/peers", headers=headers)).json()) == 1


async def test_only_customers_delete_only_their_own_account(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ana")
    await make_user(services, "beto")
    await make_user(services, "jefa", role=Role.ADMIN)
    ana = bearer(await login(client, "ana"))
    # Beto's password does not delete Ana's account (nor Beto's: the route acts on the caller only).
    assert (await client.post(DELETE, json={"password": PASSWORD + "x"}, headers=ana)).status_code == 422
    staff = bearer(await login(client, "jefa", admin=True))
    refused = await client.post(DELETE, json={"password": PASSWORD}, headers=staff)
    assert refused.status_code == 403 and refused.json()["code"] == "customer_only"
    assert (await client.post(DELETE, json={"password": PASSWORD})).status_code == 401
    beto = bearer(await login(client, "beto"))
    assert (await client.get("/api/client/settings", headers=beto)).status_code == 200


async def test_deleting_ends_every_session_and_closes_its_sockets(
    services: Services, sync_client: TestClient[Any]
) -> None:
    await make_user(services, "ana")
    await make_user(services, "beto")
    mine, other_device, someone_else = _login(sync_client), _login(sync_client), _login(sync_client, "beto")
    with (
        sync_client.websocket_connect(f"/ws?token={mine['access']}") as phone,
        sync_client.websocket_connect(f"/ws?token={other_device['access']}") as laptop,
        sync_client.websocket_connect(f"/ws?token={someone_else['access']}") as beto,
    ):
        for socket in (phone, laptop, beto):
            _greeted(socket)
        answer = sync_client.post(DELETE, json={"password": PASSWORD}, headers=bearer(mine))
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"success": True, "message": "Cuenta eliminada. Gracias por usar el servicio."}
        _assert_closed(phone)
        _assert_closed(laptop)
        _assert_open(beto)
    for tokens in (mine, other_device):
        assert sync_client.get("/api/client/settings", headers=bearer(tokens)).status_code == 401
        assert sync_client.post("/api/refresh-token", json={"refresh": tokens["refresh"]}).status_code == 401
    gone = sync_client.post("/api/client/login", json={"username": "ana", "password": PASSWORD})
    assert gone.status_code == 401 and gone.json()["message"] == "Usuario o contraseña incorrectos."


async def _traces(services: Services, user_id: str) -> tuple[list[tuple[str | None, str | None]], int]:
    """Where and on what the account's sessions were used, and how many refresh tokens they still have."""
    async with services.sessionmaker() as db:
        used = (
            await db.execute(
                select(LoginSession.ip_address, LoginSession.user_agent).where(LoginSession.user_id == user_id)
            )
        ).all()
        tokens = await db.scalar(
            select(func.count())
            .select_from(RefreshToken)
            .join(LoginSession, LoginSession.id == RefreshToken.session_id)
            .where(LoginSession.user_id == user_id)
        )
    return [tuple(row) for row in used], int(tokens or 0)


@pytest.mark.parametrize("by", ["owner", "admin"])
async def test_deletion_forgets_where_and_on_what_the_account_was_used(
    services: Services, client: AsyncTestClient[Any], by: str
) -> None:
    ana = await make_user(services, "ana")
    await make_user(services, "jefa", role=Role.ADMIN)
    phone = {"User-Agent": "Mozilla/5.0 (Android 14; Mobile) Firefox/132.0"}
    tokens = (
        await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD}, headers=phone)
    ).json()
    await client.post("/api/refresh-token", json={"refresh": tokens["refresh"]}, headers=phone)
    await login(client, "ana")
    used, refresh_tokens = await _traces(services, ana.id)
    assert ("testclient", phone["User-Agent"]) in used and refresh_tokens == 3  # what deletion must erase
    if by == "owner":
        gone = await client.post(DELETE, json={"password": PASSWORD}, headers=bearer(await login(client, "ana")))
    else:
        admin = bearer(await login(client, "jefa", admin=True))
        gone = await client.delete(f"/api/admin/users/{ana.id}", headers=admin)
    assert gone.status_code == 200, gone.text
    used, refresh_tokens = await _traces(services, ana.id)
    assert used and set(used) == {(None, None)} and refresh_tokens == 0


async def test_peers_leave_their_nodes_and_invoices_stay(services: Services, client: AsyncTestClient[Any]) -> None:
    ana = await make_user(services, "ana", email="ana@example.test", alias="Ana")
    server = await make_server(services, "Miami 1", "10.8.0.0/24")
    peer = await make_peer(services, ana, "movil", server)
    async with services.sessionmaker.begin() as db:
        plan = await add_plan(db, "Mensual", 720, Decimal("5.00"), "Un dispositivo")
        invoice = add_plan_invoice(db, "rem-1", peer, plan, status=InvoiceStatus.FULFILLED)
    await node_answers(services)
    headers = bearer(await login(client, "ana"))
    assert (await client.post(DELETE, json={"password": PASSWORD}, headers=headers)).status_code == 200
    async with services.sessionmaker() as db:
        assert await db.scalar(select(func.count()).select_from(Peer).where(Peer.user_id == ana.id)) == 0
        removal = (
            await db.execute(select(NodeOperation).where(NodeOperation.kind == OperationKind.REMOVE))
        ).scalar_one()
        assert removal.server_id == server.id and removal.delta.remove_peers == (peer.public_key,)
        assert removal.status is OperationStatus.PENDING  # the node drops the key when it receives the delta
        kept = await db.get(Invoice, invoice.id)
        assert kept is not None and kept.user_id == ana.id and kept.status is InvoiceStatus.FULFILLED
    user = await _user(services, ana.id)
    assert user.deleted_at is not None and user.username.startswith("#eliminado-")
    assert (user.email, user.alias, user.alias_key) == (None, None, None) and user.username != "ana"
    # The name is free again: someone else may register it.
    await make_user(services, "ana")


async def test_rooms_owned_go_whole_and_guest_places_are_left(services: Services, client: AsyncTestClient[Any]) -> None:
    s1 = await make_server(services, "Miami 1", "10.8.0.0/24")
    ana, beto, caro = [await person(services, client, name) for name in ("ana", "beto", "caro")]
    ana_peer, beto_peer, caro_peer = [
        await make_peer(services, who.user, f"{who.user.username}1", s1) for who in (ana, beto, caro)
    ]
    await node_answers(services)
    owned = await create(client, ana, "LAN Ana", ana_peer)
    assert (await join(client, beto, "LAN Ana", owned["password"], beto_peer)).status_code == 200
    guest_of = await create(client, caro, "LAN Caro", caro_peer)
    second = await make_peer(services, ana.user, "ana2", s1)
    await node_answers(services)
    assert (await join(client, ana, "LAN Caro", guest_of["password"], second)).status_code == 200
    await node_answers(services)
    beto.inbox.clear()
    assert (await client.post(DELETE, json={"password": PASSWORD}, headers=ana.headers)).status_code == 200
    await asyncio.sleep(0.05)
    assert "deleted_guest_party" in beto.inbox.types()
    assert (await client.get(ROOMS, headers=beto.headers)).json()["guest_partys"] == []
    caro_rooms = (await client.get(ROOMS, headers=caro.headers)).json()["owned_partys"]
    assert [[p["name"] for p in room["peers"]] for room in caro_rooms] == [["caro1"]]


async def test_a_payment_after_deletion_is_kept_for_a_refund(services: Services, client: AsyncTestClient[Any]) -> None:
    ana = await make_user(services, "ana")
    await make_server(services, "Miami 1", "10.8.0.0/24")
    async with services.sessionmaker.begin() as db:
        plan = await add_plan(db, "Mensual", 720, Decimal("5.00"), "Un dispositivo")
        invoice = Invoice(
            user_id=ana.id, remote_id="rem-2", gateway="qvapay", mode=InvoiceMode.NEW_PEER, peer_name="nuevo",
            plan_id=plan.id, plan_name=plan.name, amount=plan.price, validity_hours=720, status=InvoiceStatus.PAID,
        )  # fmt: skip
        db.add(invoice)
    headers = bearer(await login(client, "ana"))
    assert (await client.post(DELETE, json={"password": PASSWORD}, headers=headers)).status_code == 200
    await services.invoices.retry_unfulfilled()  # the job that completes paid invoices
    async with services.sessionmaker() as db:
        kept = await db.get(Invoice, invoice.id)
        assert kept is not None and kept.status is InvoiceStatus.PAID
        assert kept.problem == "La cuenta fue eliminada; el pago queda para reembolso."
        assert await db.scalar(select(func.count()).select_from(Peer)) == 0
