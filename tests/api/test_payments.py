"""Plans bought through QvaPay and Remesita, against local fake gateways: invoices, notifications, exactly-once
fulfilment, the reconciliation and expiry jobs, and every way a notification can be wrong."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, update

from controlplane.db import transaction, utcnow
from controlplane.domain.accounts.models import Role
from controlplane.domain.invoices.models import Invoice, InvoiceStatus
from controlplane.domain.peers.models import Peer, PlanHistory
from controlplane.domain.plans.models import Plan
from controlplane.domain.plans.service import add_plan
from controlplane.jobs.scheduler import Jobs
from controlplane.nodes.models import NodeOperation
from controlplane.services import Services
from controlplane.settings import RateLimit, RateLimits
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.api.test_fanout_redis import RecordingSocket
from tests.api.test_settings_schema import documented_429
from tests.fakes import qvapay as qvapay_fake
from tests.fakes import remesita as remesita_fake
from tests.fakes.gateways import gateway_settings
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita

INVOICES = "/api/client/invoices"
PEER_REQUIRED = "Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer"
MONTH = timedelta(hours=720)


@pytest.fixture
def gateway_timeout() -> float:
    """How long the control plane waits for a gateway: generous for a loaded 2-core machine. The slow-gateway test
    overrides it (parametrized) with a short one."""
    return 15.0


@pytest.fixture
def settings_overrides(
    qvapay: FakeQvaPay, remesita: FakeRemesita, gateway_timeout: float, request: pytest.FixtureRequest
) -> dict[str, Any]:
    marker = request.node.get_closest_marker("invoices_per_user")
    limits = {"rate_limits": RateLimits(invoices_per_user=RateLimit(*marker.args))} if marker else {}
    marker = request.node.get_closest_marker("payment_hints_per_address")
    if marker:
        limits = {"rate_limits": RateLimits(payment_hints_per_address=RateLimit(*marker.args))}
    return {**limits, **gateway_settings(qvapay, remesita, timeout=gateway_timeout)}


class Shop:
    """One customer with a server and a monthly plan, the gateways switched as asked, the browser listening."""

    def __init__(self, services: Services, client: AsyncTestClient[Any], fakes: dict[str, Any]) -> None:
        self.services, self.client, self.fakes = services, client, fakes
        self.browser = RecordingSocket()

    async def setup(self, *, qvapay: bool = True, remesita: bool = False, server: bool = True) -> Shop:
        await self.switch(qvapay=qvapay, remesita=remesita)
        self.server = await make_server(self.services) if server else None
        async with self.services.sessionmaker.begin() as db:
            self.plan: Plan = await add_plan(db, "Mensual", 720, Decimal("5.00"), "Un dispositivo")
        self.user = await make_user(self.services, "ana")
        self.headers = bearer(await login(self.client, "ana"))
        self.services.hub.attach(self.user.id, self.browser)
        return self

    async def switch(self, *, qvapay: bool, remesita: bool) -> None:
        async with self.services.sessionmaker.begin() as db:
            await self.services.switches.update(
                db, {"allow_payments_qvapay": qvapay, "allow_payments_remesita": remesita}
            )

    async def buy(self, mode: str, peer: str, **extra: Any) -> Any:
        return await self.client.put(
            INVOICES, json={"mode": mode, "plan": self.plan.id, "peer": peer, **extra}, headers=self.headers
        )

    async def pay_and_notify(self, remote_id: str, gateway: str, amount: Decimal | None = None) -> Any:
        """The customer pays at the gateway, which then notifies the control plane."""
        if gateway == "qvapay":
            fake: FakeQvaPay = self.fakes["qvapay"]
            transaction = fake.by_remote_id(remote_id)["uuid"]
            fake.pay(transaction, amount)
            path, body, headers = fake.notification(transaction)
            return await self.client.post(path, content=body, headers={**headers, "Content-Type": "application/json"})
        remesita: FakeRemesita = self.fakes["remesita"]
        reference = remesita.by_custom_id(remote_id)["reference"]
        remesita.pay(reference, amount)
        path, body = remesita.notification(reference)
        return await self.client.post(path, content=body, headers={"Content-Type": "application/json"})

    def pushes(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.browser.received if m["type"] == kind]

    async def invoice(self, remote_id: str) -> Invoice:
        async with self.services.sessionmaker() as db:
            found = (await db.execute(select(Invoice).where(Invoice.remote_id == remote_id))).scalar_one()
        return found

    async def peers(self) -> list[Peer]:
        async with self.services.sessionmaker() as db:
            return list((await db.execute(select(Peer).order_by(Peer.created))).scalars())

    async def history_rows(self) -> int:
        async with self.services.sessionmaker() as db:
            return int(await db.scalar(select(func.count()).select_from(PlanHistory)) or 0)


@pytest.fixture
async def shop(services: Services, client: AsyncTestClient[Any], qvapay: FakeQvaPay, remesita: FakeRemesita) -> Shop:
    return Shop(services, client, {"qvapay": qvapay, "remesita": remesita})


def close_to(moment: datetime | None, expected: datetime, slack: float = 60) -> bool:
    return moment is not None and abs((moment - expected).total_seconds()) < slack


def remote_id_of(answer: Any) -> str:
    assert answer.status_code == 200, answer.text
    return str(answer.json()["remote_id"])


# --- end to end ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gateway", ["qvapay", "remesita"])
async def test_a_new_peer_bought_through_each_gateway_is_created_once_paid(
    shop: Shop, gateway: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await shop.setup(qvapay=gateway == "qvapay", remesita=gateway == "remesita")
    answer = await shop.buy("new_peer", "portatil")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    fake = shop.fakes[gateway]
    assert body["payment_url"].startswith(f"{fake.url}/pay/")
    assert body["gateway"] == gateway and body["message"]
    remote_id = body["remote_id"]
    assert len(remote_id) >= 24  # unguessable: it is in URLs

    # What the gateway was asked for: the plan's price as a decimal string and our invoice id.
    at_gateway = fake.by_remote_id(remote_id) if gateway == "qvapay" else fake.by_custom_id(remote_id)
    assert at_gateway["amount"] == "5.00"
    details = await shop.client.get(f"{INVOICES}/{remote_id}", headers=shop.headers)
    assert details.status_code == 200
    assert details.json()["status"] == "pending" and details.json()["peer_name"] == "portatil"
    assert await shop.peers() == []  # nothing before the payment

    notified = await shop.pay_and_notify(remote_id, gateway)
    assert notified.status_code == 200, notified.text
    assert notified.json()["credited"] is True

    [peer] = await shop.peers()
    assert peer.name == "portatil" and peer.user_id == shop.user.id and peer.active
    assert close_to(peer.expiration_date, utcnow() + MONTH)
    assert await shop.history_rows() == 1
    details = (await shop.client.get(f"{INVOICES}/{remote_id}", headers=shop.headers)).json()
    assert details["status"] == "fulfilled"
    assert (details["plan_name"], details["peer_name"], details["amount"]) == ("Mensual", "portatil", "5.00")
    assert details["transaction_uuid"] == (at_gateway["uuid"] if gateway == "qvapay" else at_gateway["reference"])
    assert [p["message"] for p in shop.pushes("success")] == ["Pago recibido. Creando el peer portatil..."]

    # The node confirms the new peer: the customer's browser hears created_peer with the peer and its plan.
    assert shop.server is not None
    async with transaction(shop.services.sessionmaker) as db:  # as the agent's answer is handled
        await shop.services.operations.covered_by_snapshot(db, shop.server.id, 10**6)
    [created] = shop.pushes("created_peer")
    assert created["data"]["name"] == "portatil"
    assert created["data"]["plans_history"][0]["plan_name"] == "Mensual"

    # Nothing secret reached the logs: credentials, the webhook signature, the notification URL's key.
    secrets = [qvapay_fake.APP_SECRET, remesita_fake.API_SECRET]
    if gateway == "qvapay":
        secrets.append(shop.fakes["qvapay"].notification(details["transaction_uuid"])[2]["X-QvaPay-Signature"])
    else:
        secrets.append(shop.fakes["remesita"].notification(details["transaction_uuid"])[0].split("key=")[1])
    # (The test client's own request lines are left out: they are the gateway's side, not ours.)
    ours = "\n".join(r.getMessage() for r in caplog.records if "http://testserver.local" not in r.getMessage())
    assert "invoice" in ours
    assert not [secret for secret in secrets if secret in ours]

    # The gateway sends the customer back to the dashboard's payment page.
    back = await shop.client.get(f"/api/payments/return/{remote_id}?status=success", follow_redirects=False)
    assert back.status_code == 302
    target = urlsplit(back.headers["location"])
    assert target.path == "/dashboard/payment"
    assert parse_qs(target.query) == {
        "status": ["success"],
        "transaction_uuid": [details["transaction_uuid"]],
        "remote_id": [remote_id],
    }


@pytest.mark.parametrize("gateway", ["qvapay", "remesita"])
async def test_adding_a_plan_extends_from_the_later_of_now_and_the_expiration(shop: Shop, gateway: str) -> None:
    await shop.setup(qvapay=gateway == "qvapay", remesita=gateway == "remesita")
    current = await make_peer(shop.services, shop.user, "movil", shop.server)
    lapsed = await make_peer(shop.services, shop.user, "viejo", shop.server)
    in_ten_days = utcnow() + timedelta(days=10)
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(update(Peer).where(Peer.id == current.id).values(expiration_date=in_ten_days))
        await db.execute(update(Peer).where(Peer.id == lapsed.id).values(expiration_date=utcnow() - timedelta(days=3)))
        await shop.services.peers.set_active(db, await shop.services.peers.by_id(db, lapsed.id), False)

    for peer in (current, lapsed):
        remote_id = remote_id_of(await shop.buy("add_plan", peer.id))
        assert (await shop.pay_and_notify(remote_id, gateway)).json()["credited"] is True

    stored = {p.name: p for p in await shop.peers()}
    assert close_to(stored["movil"].expiration_date, in_ten_days + MONTH)  # from the current expiration
    assert close_to(stored["viejo"].expiration_date, utcnow() + MONTH)  # from now: it had lapsed
    assert stored["viejo"].active is True  # and it goes back on its node
    async with shop.services.sessionmaker() as db:
        enable = await db.scalar(
            select(func.count())
            .select_from(NodeOperation)
            .where(NodeOperation.peer_id == lapsed.id, NodeOperation.kind == "enable")
        )
    assert enable == 1
    assert await shop.history_rows() == 2
    updated = shop.pushes("updated_peer")
    assert [u["data"]["name"] for u in updated] == ["movil", "viejo"]
    assert updated[0]["data"]["plans_history"][-1] == {
        "plan_name": "Mensual",
        "plan_price": "5.00",
        "created": updated[0]["data"]["plans_history"][-1]["created"],
    }
    assert "Plan Mensual añadido al peer movil" in shop.pushes("success")[0]["message"]


# --- the purchase's rules -----------------------------------------------------------------------------------


async def test_purchases_are_refused_with_a_spanish_reason_and_leave_nothing_behind(shop: Shop) -> None:
    await shop.setup(qvapay=False, remesita=False)
    own = await make_peer(shop.services, shop.user, "movil", shop.server)
    other_user = await make_user(shop.services, "beto")
    foreign = await make_peer(shop.services, other_user, "ajeno", shop.server)
    manual = await make_peer(shop.services, shop.user, "manual", shop.server)
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(update(Peer).where(Peer.id == manual.id).values(manual_payment=True))

    closed = await shop.buy("new_peer", "portatil")
    assert closed.status_code == 409
    assert closed.json() == {
        "message": "Los pagos en línea no están disponibles en este momento. "
        "Contacte con soporte para adquirir un plan.",
        "code": "payments_disabled",
    }

    await shop.switch(qvapay=True, remesita=False)
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"mode": "new_peer", "peer": ""}, 422, "peer_required"),
        ({"mode": "add_plan"}, 422, "peer_required"),
        ({"mode": "new_peer", "peer": "mi portátil!"}, 422, "invalid_peer_name"),
        ({"mode": "new_peer", "peer": "MOVIL"}, 409, "peer_name_taken"),
        ({"mode": "add_plan", "peer": foreign.id}, 404, "peer_not_found"),
        ({"mode": "add_plan", "peer": "no-existe"}, 404, "peer_not_found"),
        ({"mode": "add_plan", "peer": manual.id}, 409, "manual_payment_peer"),
        ({"mode": "regalar", "peer": "x"}, 422, "invalid_mode"),
        ({"mode": "new_peer", "peer": "tablet", "plan": "no-existe"}, 404, "plan_not_found"),
        ({"mode": "new_peer", "peer": "tablet", "gateway": "remesita"}, 422, "gateway_not_available"),
        ({"mode": "new_peer", "peer": "tablet", "precio": "0.01"}, 422, "invalid"),
    ]
    for body, status, code in cases:
        answer = await shop.client.put(INVOICES, json={"plan": shop.plan.id, **body}, headers=shop.headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), body
        assert answer.json()["message"]
    required = await shop.client.put(INVOICES, json={"plan": shop.plan.id, "mode": "new_peer"}, headers=shop.headers)
    assert required.json()["message"] == PEER_REQUIRED

    async with shop.services.sessionmaker() as db:
        assert await db.scalar(select(func.count()).select_from(Invoice)) == 0
    assert (await shop.buy("add_plan", own.id)).status_code == 200  # the one good purchase goes through


async def test_with_both_gateways_on_qvapay_is_used_unless_the_customer_names_one(shop: Shop) -> None:
    await shop.setup(qvapay=True, remesita=True)
    default = await shop.buy("new_peer", "uno")
    chosen = await shop.buy("new_peer", "dos", gateway="remesita")
    assert default.json()["gateway"] == "qvapay"
    assert chosen.json()["gateway"] == "remesita"
    assert chosen.json()["payment_url"].startswith(shop.fakes["remesita"].url)


async def test_another_users_invoice_answers_404(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    await make_user(shop.services, "beto")
    intruder = bearer(await login(shop.client, "beto"))
    for path in (f"{INVOICES}/{remote_id}", f"{INVOICES}/no-existe"):
        answer = await shop.client.get(path, headers=intruder)
        assert answer.status_code == 404
        assert answer.json() == {"message": "Factura no encontrada.", "code": "invoice_not_found"}


# --- notifications that must not credit ---------------------------------------------------------------------


async def test_a_forged_qvapay_signature_is_refused_without_asking_the_gateway(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    transaction = fake.by_remote_id(remote_id)["uuid"]
    path, body, headers = fake.notification(transaction, secret="not-the-app-secret", status="paid")
    fake.reset()
    answer = await shop.client.post(path, content=body, headers=headers)
    assert answer.status_code == 401
    assert answer.json()["code"] == "notification_refused"
    assert fake.calls == []  # not even read back (an unsigned one is a hint: see the QvaPay section below)
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.PENDING
    assert await shop.peers() == []


async def test_a_wrong_remesita_url_secret_is_refused(shop: Shop) -> None:
    await shop.setup(qvapay=False, remesita=True)
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    fake: FakeRemesita = shop.fakes["remesita"]
    reference = fake.by_custom_id(remote_id)["reference"]
    fake.pay(reference)
    path, body = fake.notification(reference)
    forged = path.split("?", 1)[0] + "?key=adivinado"
    answer = await shop.client.post(forged, content=body)
    assert answer.status_code == 401
    assert (await shop.client.post(path.split("?", 1)[0], content=body)).status_code == 401  # no key at all
    # The right secret but another invoice's id in the body: refused too.
    mixed = await shop.client.post(path, content=body.replace(remote_id.encode(), b"otra-factura"))
    assert mixed.status_code == 401
    assert await shop.peers() == []


@pytest.mark.parametrize("gateway", ["qvapay", "remesita"])
async def test_a_replayed_notification_credits_nothing_more(shop: Shop, gateway: str) -> None:
    await shop.setup(qvapay=gateway == "qvapay", remesita=gateway == "remesita")
    peer = await make_peer(shop.services, shop.user, "movil", shop.server)
    remote_id = remote_id_of(await shop.buy("add_plan", peer.id))
    assert (await shop.pay_and_notify(remote_id, gateway)).json()["credited"] is True
    extended = (await shop.peers())[0].expiration_date

    # The same notification again, later: handled, nothing credited.
    if gateway == "qvapay":
        path, body, headers = shop.fakes["qvapay"].notification(shop.fakes["qvapay"].by_remote_id(remote_id)["uuid"])
    else:
        path, body = shop.fakes["remesita"].notification(shop.fakes["remesita"].by_custom_id(remote_id)["reference"])
        headers = {}
    again = await shop.client.post(path, content=body, headers=headers)
    assert again.status_code == 200
    assert again.json() == {"received": True, "credited": False, "result": "already_handled"}
    assert (await shop.peers())[0].expiration_date == extended
    assert await shop.history_rows() == 1


async def test_an_old_qvapay_notification_is_refused_as_a_replay(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction, timestamp=int(time.time()) - 3600)
    answer = await shop.client.post(path, content=body, headers=headers)
    assert answer.status_code == 401
    assert await shop.peers() == []


@pytest.mark.parametrize("gateway", ["qvapay", "remesita"])
async def test_a_payment_of_the_wrong_amount_is_not_credited(shop: Shop, gateway: str) -> None:
    await shop.setup(qvapay=gateway == "qvapay", remesita=gateway == "remesita")
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    answer = await shop.pay_and_notify(remote_id, gateway, amount=Decimal("0.50"))
    assert answer.status_code == 200
    assert answer.json()["credited"] is False and answer.json()["result"] == "amount_mismatch"
    invoice = await shop.invoice(remote_id)
    assert invoice.status is InvoiceStatus.FAILED and invoice.problem and "0.50" in invoice.problem
    assert invoice.gateway_record and invoice.gateway_record["payment"]["amount"] == "0.50"
    assert await Jobs(shop.services).run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0
    assert await shop.peers() == []


async def test_notifications_for_unknown_invoices_are_refused(shop: Shop) -> None:
    await shop.setup(qvapay=True, remesita=True)
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction, remote_id="factura-inventada")
    signed = await shop.client.post(path, content=body, headers=headers)  # validly signed, but not ours
    assert signed.status_code == 404
    assert signed.json()["code"] == "invoice_not_found"

    remesita_url = shop.services.invoices.gateways["remesita"].notify_url("factura-inventada")
    unknown_url = urlsplit(remesita_url)
    unknown = await shop.client.post(f"{unknown_url.path}?{unknown_url.query}", content=b'{"status": "paid"}')
    assert unknown.status_code == 404
    assert await shop.peers() == []


# --- exactly once -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("signed", [True, False])  # unsigned: QvaPay's webhook as qvapaykit describes it (a hint)
@pytest.mark.parametrize("mode", ["new_peer", "add_plan"])
async def test_duplicate_and_concurrent_notifications_credit_once(shop: Shop, mode: str, signed: bool) -> None:
    await shop.setup()
    peer = await make_peer(shop.services, shop.user, "movil", shop.server) if mode == "add_plan" else None
    remote_id = remote_id_of(await shop.buy(mode, peer.id if peer else "portatil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction, signed=signed)

    answers = await asyncio.gather(*(shop.client.post(path, content=body, headers=headers) for _ in range(6)))
    assert [a.status_code for a in answers] == [200] * 6
    assert sum(a.json()["credited"] for a in answers) == 1
    # ...and the reconciliation job finding the same payment afterwards credits nothing either.
    assert await Jobs(shop.services).run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0

    peers = await shop.peers()
    assert len(peers) == 1
    assert await shop.history_rows() == 1
    expected = (peer.expiration_date or utcnow()) if peer else utcnow()
    assert close_to(peers[0].expiration_date, expected + MONTH)
    assert len(shop.pushes("success")) == 1


# --- gateway trouble and the jobs ---------------------------------------------------------------------------


# A short gateway timeout here (the fixture's is generous): the customer must be answered long before the 30 s bound.
@pytest.mark.parametrize("gateway_timeout", [2.0])
@pytest.mark.parametrize("trouble", ["down", "slow"])
async def test_a_gateway_down_or_slow_at_purchase_gives_a_clear_error(shop: Shop, trouble: str) -> None:
    await shop.setup()
    fake: FakeQvaPay = shop.fakes["qvapay"]
    if trouble == "down":
        fake.down = True
    else:
        fake.delay = 60.0  # the control plane gives up after 2 s in this test (gateway_timeout)
    started = time.monotonic()
    answer = await shop.buy("new_peer", "portatil")
    # The customer is not kept waiting for the gateway: the answer comes long before the gateway's would have
    # (a wide margin, so a loaded machine cannot make this fail).
    assert time.monotonic() - started < 30
    assert answer.status_code == 502
    assert answer.json() == {
        "message": "La pasarela de pago no responde en este momento. Intente de nuevo en unos minutos.",
        "code": "gateway_unavailable",
    }
    async with shop.services.sessionmaker() as db:
        [kept] = (await db.execute(select(Invoice))).scalars().all()
    assert kept.status is InvoiceStatus.FAILED  # kept for the admins, never paid
    # What the admins read of it in the manager: Spanish, the gateway by its brand.
    assert kept.problem == (
        "QvaPay no está disponible (HTTP 503)." if trouble == "down" else "QvaPay no respondió en 2 s."
    )
    fake.reset()
    assert (await shop.buy("new_peer", "portatil")).status_code == 200  # once it is back, buying works


async def test_a_payment_that_could_not_be_read_back_is_credited_by_the_job(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction)
    fake.down = True
    answer = await shop.client.post(path, content=body, headers=headers)
    assert answer.status_code == 502  # the gateway will notify again
    assert answer.json()["code"] == "gateway_unavailable"
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.PENDING

    jobs = Jobs(shop.services)
    assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0  # still down
    fake.down = False
    assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 1
    assert [p.name for p in await shop.peers()] == ["portatil"]
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.FULFILLED


async def test_a_missed_notification_is_found_by_reconciliation(shop: Shop) -> None:
    await shop.setup(qvapay=False, remesita=True)
    peer = await make_peer(shop.services, shop.user, "movil", shop.server)
    remote_id = remote_id_of(await shop.buy("add_plan", peer.id))
    unpaid = remote_id_of(await shop.buy("new_peer", "sin-pagar"))
    fake: FakeRemesita = shop.fakes["remesita"]
    fake.pay(fake.by_custom_id(remote_id)["reference"])  # paid, but the IPN never arrives

    jobs = Jobs(shop.services)
    assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 1
    assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.FULFILLED
    assert (await shop.invoice(unpaid)).status is InvoiceStatus.PENDING
    assert close_to((await shop.peers())[0].expiration_date, utcnow() + MONTH)


async def test_stale_invoices_expire_but_a_late_payment_still_credits(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    fresh = remote_id_of(await shop.buy("new_peer", "otro"))
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(
            update(Invoice).where(Invoice.remote_id == remote_id).values(created=utcnow() - timedelta(hours=25))
        )
    assert await Jobs(shop.services).run_once("expire_invoices", shop.services.invoices.expire_stale, 300) == 1
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.EXPIRED
    assert (await shop.invoice(fresh)).status is InvoiceStatus.PENDING

    assert (await shop.pay_and_notify(remote_id, "qvapay")).json()["credited"] is True
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.FULFILLED


async def test_a_paid_invoice_waits_for_a_server_with_room_and_is_fulfilled_later(shop: Shop) -> None:
    await shop.setup(server=False)
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    answer = await shop.pay_and_notify(remote_id, "qvapay")
    assert answer.status_code == 200 and answer.json()["credited"] is True
    invoice = await shop.invoice(remote_id)
    assert invoice.status is InvoiceStatus.PAID and invoice.problem == "No hay servidores disponibles temporalmente."
    [error] = shop.pushes("error")
    assert error["message"].startswith("Pago recibido, pero no se pudo completar la compra")

    await make_server(shop.services)
    assert await Jobs(shop.services).run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 1
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.FULFILLED
    assert [p.name for p in await shop.peers()] == ["portatil"]
    assert await shop.history_rows() == 1


async def test_a_paid_invoice_that_cannot_be_fulfilled_is_told_once_not_at_every_retry(shop: Shop) -> None:
    # Found by the stateful invoice test: each reconciliation run (every minute) pushed the error toast again.
    await shop.setup(server=False)
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    assert (await shop.pay_and_notify(remote_id, "qvapay")).json()["credited"] is True
    jobs = Jobs(shop.services)
    for _ in range(3):
        assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0
    [error] = shop.pushes("error")
    assert "No hay servidores disponibles temporalmente." in error["message"]
    invoice = await shop.invoice(remote_id)
    assert invoice.status is InvoiceStatus.PAID and invoice.problem == "No hay servidores disponibles temporalmente."


async def test_notifications_are_handled_during_maintenance(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    async with shop.services.sessionmaker.begin() as db:
        await shop.services.switches.update(db, {"maintenance": True})
    assert (await shop.client.get(f"{INVOICES}/{remote_id}", headers=shop.headers)).status_code == 503
    assert (await shop.pay_and_notify(remote_id, "qvapay")).json()["credited"] is True


async def test_payments_show_in_the_metrics_by_gateway_and_outcome(shop: Shop) -> None:
    await shop.setup()
    paid = remote_id_of(await shop.buy("new_peer", "portatil"))
    assert (await shop.pay_and_notify(paid, "qvapay")).json()["credited"] is True
    forged = remote_id_of(await shop.buy("new_peer", "movil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    path, body, headers = fake.notification(fake.by_remote_id(forged)["uuid"], secret="otro", status="paid")
    assert (await shop.client.post(path, content=body, headers=headers)).status_code == 401

    def counted(outcome: str) -> float | None:
        return shop.services.metrics.registry.get_sample_value(
            "vpn_payments_total", {"gateway": "qvapay", "outcome": outcome}
        )

    assert (counted("created"), counted("paid"), counted("fulfilled"), counted("rejected")) == (2, 1, 1, 1)
    await shop.services.metrics.refresh()
    by_status = {
        status: shop.services.metrics.registry.get_sample_value("vpn_invoices", {"status": status})
        for status in ("pending", "fulfilled")
    }
    assert by_status == {"pending": 1, "fulfilled": 1}


@pytest.mark.invoices_per_user(2, 3600)
async def test_a_customer_cannot_flood_the_gateways_with_invoices(shop: Shop) -> None:
    await shop.setup()
    assert (await shop.buy("new_peer", "uno")).status_code == 200
    assert (await shop.buy("new_peer", "dos")).status_code == 200
    third = await shop.buy("new_peer", "tres")
    assert third.json()["code"] == "too_many_requests"
    await documented_429(shop.client, "/api/client/invoices", "put", third)
    async with shop.services.sessionmaker() as db:
        assert await db.scalar(select(func.count()).select_from(Invoice)) == 2  # the refused one left nothing


async def test_old_unpaid_invoices_are_asked_about_less_often(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    fake.pay(fake.by_remote_id(remote_id)["uuid"])
    two_hours_ago = utcnow() - timedelta(hours=2)
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(update(Invoice).values(created=two_hours_ago, updated=utcnow() - timedelta(minutes=1)))
    fake.reset()
    jobs = Jobs(shop.services)
    assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0
    assert fake.calls == []  # asked a minute ago: not yet
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(update(Invoice).values(updated=utcnow() - timedelta(minutes=20)))
    assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 1
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.FULFILLED


# --- an admin's disable wins (docs/security.md, "An admin's disable wins") ---------------------------------------


async def test_a_peer_staff_disabled_stays_disabled_when_paid_and_cannot_be_renewed(shop: Shop) -> None:
    await shop.setup()
    await make_user(shop.services, "jefa", role=Role.ADMIN)
    staff = bearer(await login(shop.client, "jefa", admin=True))
    peer = await make_peer(shop.services, shop.user, "movil", shop.server)
    # An extension the customer opened before staff stepped in: paying it must not undo staff's decision.
    opened_before = remote_id_of(await shop.buy("add_plan", peer.id))
    answer = await shop.client.patch(f"/api/admin/peers/{peer.id}", json={"active": False}, headers=staff)
    assert answer.status_code == 200, answer.text

    refused = await shop.buy("add_plan", peer.id)
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "peer_disabled_by_staff"
    assert "deshabilitado por un administrador" in refused.json()["message"]

    assert (await shop.pay_and_notify(opened_before, "qvapay")).json()["credited"] is True
    staff_extend = await shop.client.post(
        f"/api/admin/peers/{peer.id}/plans", json={"plan": shop.plan.id}, headers=staff
    )
    assert staff_extend.status_code == 200, staff_extend.text
    assert staff_extend.json()["active"] is False  # extending is not enabling
    listed = (await shop.client.get("/api/client/accounts/peers", headers=shop.headers)).json()
    assert [(p["active"], p["disabled_reason"]) for p in listed] == [(False, "admin")]

    enabled = await shop.client.patch(f"/api/admin/peers/{peer.id}", json={"active": True}, headers=staff)
    assert enabled.json()["active"] is True
    listed = (await shop.client.get("/api/client/accounts/peers", headers=shop.headers)).json()
    assert [(p["active"], p["disabled_reason"]) for p in listed] == [(True, None)]
    assert (await shop.buy("add_plan", peer.id)).status_code == 200  # renewable again


async def test_an_expired_peer_says_so_and_comes_back_when_paid(shop: Shop) -> None:
    await shop.setup()
    peer = await make_peer(shop.services, shop.user, "movil", shop.server)
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(update(Peer).where(Peer.id == peer.id).values(expiration_date=utcnow() - timedelta(days=1)))
        assert await shop.services.peers.expire_due(db) == 1
    listed = (await shop.client.get("/api/client/accounts/peers", headers=shop.headers)).json()
    assert [(p["active"], p["disabled_reason"]) for p in listed] == [(False, "expired")]
    assert (await shop.pay_and_notify(remote_id_of(await shop.buy("add_plan", peer.id)), "qvapay")).json()["credited"]
    assert [p.active for p in await shop.peers()] == [True]


async def test_a_genuine_notification_for_an_invoice_settled_by_hand_is_acknowledged(shop: Shop) -> None:
    """Staff credited it by hand; the gateway's own notification must get its 200 (it retries until it does) and
    credit nothing more."""
    await shop.setup()
    await make_user(shop.services, "jefa", role=Role.ADMIN)
    staff = bearer(await login(shop.client, "jefa", admin=True))
    peer = await make_peer(shop.services, shop.user, "movil", shop.server)
    remote_id = remote_id_of(await shop.buy("add_plan", peer.id))
    invoice = await shop.invoice(remote_id)
    manual = await shop.client.post(
        f"/api/admin/invoices/{invoice.id}/manual-payment", json={"note": "Transferencia"}, headers=staff
    )
    assert manual.status_code == 200, manual.text
    for _ in range(2):  # and again: the same genuine notification, as a gateway that retries sends it
        answer = await shop.pay_and_notify(remote_id, "qvapay") if _ == 0 else await renotify(shop, remote_id)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"received": True, "credited": False, "result": "settled_by_hand"}
    assert await shop.history_rows() == 1
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.FULFILLED


async def renotify(shop: Shop, remote_id: str) -> Any:
    fake: FakeQvaPay = shop.fakes["qvapay"]
    path, body, headers = fake.notification(fake.by_remote_id(remote_id)["uuid"])
    return await shop.client.post(path, content=body, headers={**headers, "Content-Type": "application/json"})


# --- QvaPay as its own SDK describes it (qvapaykit): products, both spellings, duplicates, unsigned hints --------


def qvapay_of(shop: Shop) -> FakeQvaPay:
    fake: FakeQvaPay = shop.fakes["qvapay"]
    return fake


async def post_hint(shop: Shop, payload: dict[str, Any]) -> Any:
    """An unsigned notification, as qvapaykit says QvaPay sends them (or as anyone can)."""
    return await shop.client.post(
        "/api/payments/qvapay/webhook", content=json.dumps(payload), headers={"Content-Type": "application/json"}
    )


def read_backs(fake: FakeQvaPay) -> list[str]:
    return [path for method, path in fake.calls if path.startswith("/v2/transactions")]


@pytest.mark.parametrize("price", ["5.00", "4.99", "1234.10"])
async def test_qvapay_is_asked_for_the_plan_as_one_product_at_its_exact_price(shop: Shop, price: str) -> None:
    await shop.setup()
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(update(Plan).where(Plan.id == shop.plan.id).values(price=Decimal(price)))
    answer = await shop.buy("new_peer", "portatil")
    # The fake refuses, as the v2 API does (qvapaykit), an invoice without products or with the amount as a string.
    assert answer.status_code == 200, answer.text
    at_gateway = qvapay_of(shop).by_remote_id(answer.json()["remote_id"])
    assert at_gateway["amount"] == price
    assert at_gateway["products"] == [{"name": "Plan Mensual", "price": Decimal(price), "quantity": 1}]


async def test_the_fake_refuses_an_invoice_as_the_old_code_sent_it(qvapay: FakeQvaPay) -> None:
    """What the control plane sent before (no products, the amount as a string) is refused by the stricter fake:
    so the purchase test above would fail on that code."""
    old_body = {"amount": "5.00", "description": "VPN", "remote_id": "r" * 24, "signed": 1}
    headers = {"app-id": qvapay_fake.APP_ID, "app-secret": qvapay_fake.APP_SECRET}
    async with httpx.AsyncClient() as http:
        refused = await http.post(f"{qvapay.base_url}/create_invoice", json=old_body, headers=headers)
        assert refused.status_code == 400 and refused.json() == {"error": "Faltan campos requeridos"}
        products = [{"name": "Plan", "price": 5, "quantity": 1}]
        as_string = await http.post(
            f"{qvapay.base_url}/create_invoice", json={**old_body, "products": products}, headers=headers
        )
        assert as_string.status_code == 400
    assert not [i for i in qvapay.invoices.values() if i["remote_id"] == "r" * 24]


@pytest.mark.parametrize(
    "spellings", [("transaction_uuid",), ("transation_uuid",), ("transaction_uuid", "transation_uuid")]
)
async def test_either_spelling_of_the_transaction_id_is_read(shop: Shop, spellings: tuple[str, ...]) -> None:
    await shop.setup()
    fake = qvapay_of(shop)
    fake.spellings = spellings
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    transaction = fake.by_remote_id(remote_id)["uuid"]
    assert (await shop.invoice(remote_id)).transaction_id == transaction
    # ...so the payment is read back and credited by the job even if no notification ever comes.
    fake.pay(transaction)
    assert await Jobs(shop.services).run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 1
    assert [p.name for p in await shop.peers()] == ["portatil"]


async def test_a_lost_create_answer_is_recovered_from_the_duplicate_remote_id(shop: Shop) -> None:
    await shop.setup()
    fake = qvapay_of(shop)
    fake.lose_answers = 1  # QvaPay makes the invoice, the answer is lost on the way (a proxy's 502)
    answer = await shop.buy("new_peer", "portatil")
    assert answer.status_code == 200, answer.text
    remote_id = answer.json()["remote_id"]
    # The retry was answered DUPLICATE_REQUEST; the invoice QvaPay already held was found by reading back.
    [made] = [i for i in fake.invoices.values() if i["remote_id"] == remote_id]
    assert answer.json()["payment_url"] == f"{fake.url}/pay/{made['uuid']}"
    assert [path for _, path in fake.calls] == ["/v2/create_invoice", "/v2/create_invoice", "/v2/transactions"]
    invoice = await shop.invoice(remote_id)
    assert invoice.status is InvoiceStatus.PENDING and invoice.transaction_id == made["uuid"]

    notified = await shop.pay_and_notify(remote_id, "qvapay")
    assert notified.json()["credited"] is True
    assert [p.name for p in await shop.peers()] == ["portatil"]


@pytest.mark.parametrize("names", ["uuid_and_remote_id", "uuid", "remote_id"])
async def test_an_unsigned_notification_is_read_back_and_credited(shop: Shop, names: str) -> None:
    await shop.setup()
    fake = qvapay_of(shop)
    fake.signs_webhooks = False
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    _, body, headers = fake.notification(transaction)
    assert "X-QvaPay-Signature" not in headers
    payload = json.loads(body)
    if names == "uuid":
        payload = {"transaction_uuid": transaction.upper()}  # any spelling of the UUID; read back canonical
    elif names == "remote_id":
        payload = {"remote_id": remote_id, "status": "paid"}
    fake.reset()
    answer = await post_hint(shop, payload)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"received": True, "credited": True, "result": "credited"}
    assert read_backs(fake) == [f"/v2/transactions/{transaction}"]  # credited on the gateway's word
    assert [p.name for p in await shop.peers()] == ["portatil"]
    # QvaPay's retry of the same hint: 200, nothing more.
    again = await post_hint(shop, payload)
    assert again.status_code == 200 and again.json()["result"] == "already_handled"
    assert await shop.history_rows() == 1


async def test_a_forged_hint_credits_nothing(shop: Shop) -> None:
    await shop.setup()
    fake = qvapay_of(shop)
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.reset()

    # "Paid", says the hint, with the right names: the gateway, asked, says pending. Answered 200, nothing credited.
    claim = {"transaction_uuid": transaction, "remote_id": remote_id, "status": "paid", "amount": 5}
    answer = await post_hint(shop, claim)
    assert answer.status_code == 200
    assert answer.json() == {"received": True, "credited": False, "result": "pending"}
    assert read_backs(fake) == [f"/v2/transactions/{transaction}"]

    fake.reset()
    # Our invoice with another transaction: nothing to read back.
    other = await post_hint(shop, {"transaction_uuid": str(uuid.uuid4()), "remote_id": remote_id, "status": "paid"})
    assert other.status_code == 200 and other.json()["result"] == "other_payment"
    # A UUID that is no invoice of ours, a path instead of a UUID, a remote id that is not ours, nothing at all.
    assert (await post_hint(shop, {"transaction_uuid": str(uuid.uuid4())})).status_code == 404
    for bad in ({"transaction_uuid": "../charge?amount=1"}, {"remote_id": "../../x"}, {"status": "paid"}):
        refused = await post_hint(shop, bad)
        assert refused.status_code == 401 and refused.json()["code"] == "notification_refused"
    assert (await shop.client.post("/api/payments/qvapay/webhook", content=b"no es json")).status_code == 401
    assert read_backs(fake) == []  # none of these reached the gateway
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.PENDING
    assert await shop.peers() == []


@pytest.mark.payment_hints_per_address(3, 60)
async def test_unsigned_notifications_are_throttled_per_address_signed_ones_are_not(shop: Shop) -> None:
    await shop.setup()
    fake = qvapay_of(shop)
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    transaction = fake.by_remote_id(remote_id)["uuid"]
    for _ in range(3):
        assert (await post_hint(shop, {"transaction_uuid": transaction})).status_code == 200
    fake.reset()
    refused = await post_hint(shop, {"transaction_uuid": transaction})
    assert refused.json()["code"] == "too_many_requests"
    await documented_429(shop.client, "/api/payments/qvapay/webhook", "post", refused)
    assert read_backs(fake) == []
    # A signed notification from the same address is not a hint: handled, and it credits.
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction)
    signed = await shop.client.post(path, content=body, headers=headers)
    assert signed.status_code == 200 and signed.json()["credited"] is True


async def test_qvapay_really_down_then_back(shop: Shop) -> None:
    """The gateway's port closed (not a 503): purchase, signed and unsigned notifications all fail cleanly, and
    once it listens again the payment made meanwhile is credited once."""
    await shop.setup()
    fake = qvapay_of(shop)
    remote_id = remote_id_of(await shop.buy("new_peer", "portatil"))
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction)
    with fake.stopped():
        bought = await shop.buy("new_peer", "otro")
        assert bought.status_code == 502
        assert bought.json() == {
            "message": "La pasarela de pago no responde en este momento. Intente de nuevo en unos minutos.",
            "code": "gateway_unavailable",
        }
        signed = await shop.client.post(path, content=body, headers=headers)
        hint = await post_hint(shop, {"transaction_uuid": transaction})
        for answer in (signed, hint):  # the gateway is told to retry; the job will read back meanwhile
            assert answer.status_code == 502 and answer.json()["code"] == "gateway_unavailable"
        jobs = Jobs(shop.services)
        assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0
        assert (await shop.invoice(remote_id)).status is InvoiceStatus.PENDING
        assert await shop.peers() == []
    assert await jobs.run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 1
    assert [p.name for p in await shop.peers()] == ["portatil"]
    again = await shop.client.post(path, content=body, headers=headers)
    assert again.json() == {"received": True, "credited": False, "result": "already_handled"}


# --- the customer comes back "canceled" ------------------------------------------------------------------------


def cancel_at_gateway(shop: Shop, gateway: str, remote_id: str) -> None:
    if gateway == "qvapay":
        fake: FakeQvaPay = shop.fakes["qvapay"]
        fake.cancel(fake.by_remote_id(remote_id)["uuid"])
    else:
        remesita: FakeRemesita = shop.fakes["remesita"]
        remesita.cancel(remesita.by_custom_id(remote_id)["reference"])


async def come_back(shop: Shop, remote_id: str, status: str) -> Any:
    back = await shop.client.get(f"/api/payments/return/{remote_id}?status={status}", follow_redirects=False)
    assert back.status_code == 302
    assert parse_qs(urlsplit(back.headers["location"]).query)["status"] == [status]
    return (await shop.client.get(f"{INVOICES}/{remote_id}", headers=shop.headers)).json()


@pytest.mark.parametrize("gateway", ["qvapay", "remesita"])
async def test_a_payment_canceled_at_the_gateway_is_marked_canceled_when_the_customer_returns(
    shop: Shop, gateway: str
) -> None:
    await shop.setup(qvapay=gateway == "qvapay", remesita=gateway == "remesita")
    remote_id = remote_id_of(await shop.buy("new_peer", "movil"))
    cancel_at_gateway(shop, gateway, remote_id)
    # The admins' Facturas page reads the same row: no longer 'PENDIENTE'.
    assert (await come_back(shop, remote_id, "canceled"))["status"] == "canceled"
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.CANCELED
    assert await shop.peers() == []


async def test_the_customers_word_alone_cancels_nothing(shop: Shop) -> None:
    """A return URL saying "canceled" for a payment the gateway still holds open (or that was paid) changes nothing:
    anyone can type that URL."""
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "movil"))
    assert (await come_back(shop, remote_id, "canceled"))["status"] == "pending"
    # Paid meanwhile: the read-back credits it instead.
    fake: FakeQvaPay = shop.fakes["qvapay"]
    fake.pay(fake.by_remote_id(remote_id)["uuid"])
    assert (await come_back(shop, remote_id, "canceled"))["status"] in ("paid", "fulfilled")
    assert [peer.name for peer in await shop.peers()] == ["movil"]


async def test_a_gateway_down_when_the_customer_returns_leaves_the_invoice_to_the_job(shop: Shop) -> None:
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "movil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    fake.cancel(fake.by_remote_id(remote_id)["uuid"])
    fake.down = True
    try:
        assert (await come_back(shop, remote_id, "canceled"))["status"] == "pending"
    finally:
        fake.down = False
    await shop.services.invoices.reconcile()
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.CANCELED


async def test_a_replayed_canceled_return_asks_the_gateway_a_bounded_number_of_times(shop: Shop) -> None:
    """Whoever saw the return URL can replay it: the customer is still redirected every time, but the gateway is
    asked only up to the per-invoice limit, and the reconciliation job still settles the invoice after."""
    await shop.setup()
    remote_id = remote_id_of(await shop.buy("new_peer", "movil"))
    fake: FakeQvaPay = shop.fakes["qvapay"]
    limit = shop.services.settings.rate_limits.payment_returns_per_invoice

    def reads() -> int:
        return sum(1 for _method, path in fake.calls if path.startswith("/v2/transactions/"))

    before = reads()
    for _ in range(limit.attempts + 5):
        assert (await come_back(shop, remote_id, "canceled"))["status"] == "pending"
    assert reads() - before == limit.attempts
    fake.cancel(fake.by_remote_id(remote_id)["uuid"])
    assert (await come_back(shop, remote_id, "canceled"))["status"] == "pending"  # over the limit: not asked
    await shop.services.invoices.reconcile()
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.CANCELED
