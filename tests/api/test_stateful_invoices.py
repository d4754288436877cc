"""Stateful property test of invoice fulfilment (hypothesis RuleBasedStateMachine) on the real database, against
the local fake gateways over HTTP, with the control plane's clock moved by hand.

Customers buy a new peer or a plan for one of theirs through QvaPay or Remesita; at the gateway they pay, pay the
wrong amount or cancel; the gateways' notifications arrive once, several times, late, out of order, forged or
never; the reconciliation, invoice-expiry and peer-expiry jobs run; gateways go down or slow; an admin marks
invoices paid or extends peers; peers are deleted while their extension is pending. A model predicts each answer
and, after every step, the database must equal the model:
- every payment credits exactly once (one peer or one plans_history row per fulfilled invoice), and only when the
  gateway records it as paid with the invoice's amount, or an admin marked it;
- each peer's expiration is what its credits add up to (PeerService.add_plan: from the later of now and the
  previous expiration), and nothing is credited for a canceled, expired, failed or forged payment;
- invoice states only move forward, and after a reconciliation run no invoice is left `paid` but unfulfilled
  unless its peer is gone;
- the customer's pushes, invoice pages and peer list agree with the database.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule
from sqlalchemy import select, update
from sqlalchemy.orm import selectinload

from controlplane.db import system_time, transaction
from controlplane.domain.accounts.models import Role
from controlplane.domain.invoices.models import Invoice
from controlplane.domain.invoices.service import MANUAL_PREFIX, NotificationRefused
from controlplane.domain.peers.models import Peer
from controlplane.domain.plans.service import add_plan
from controlplane.domain.servers.models import Server
from controlplane.jobs.scheduler import Jobs
from controlplane.payments.base import PaymentRecord, PaymentStatus
from controlplane.payments.qvapay import signature
from controlplane.services import Services
from controlplane.settings import RateLimits
from tests.api.conftest import LOOSE, _empty_database
from tests.api.factories import bearer, login, make_server, make_user
from tests.api.stateful import ServicesMachine, machine_client, machine_services, run_machine
from tests.api.test_fanout_redis import RecordingSocket
from tests.clock import ManualClock, manual_clock
from tests.fakes import qvapay as qvapay_fake
from tests.fakes.gateways import gateway_settings
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita

GATEWAYS = ("qvapay", "remesita")
LABELS = {"qvapay": "QvaPay", "remesita": "Remesita"}
PLANS = (("Mensual", 720, Decimal("5.00")), ("Semanal", 168, Decimal("2.50")))
NAMES = ("tablet", "movil", "casa")  # few, so that purchases collide with each other and with existing peers
CREDITABLE = {"pending", "expired", "canceled"}
STAFF_CREDITABLE = {*CREDITABLE, "failed"}  # staff may also settle a failed invoice (its reason required)
FORWARD = {
    "pending": {"pending", "paid", "fulfilled", "canceled", "expired", "failed"},
    "expired": {"expired", "paid", "fulfilled", "failed"},
    "canceled": {"canceled", "paid", "fulfilled", "failed"},
    "paid": {"paid", "fulfilled"},
    "fulfilled": {"fulfilled"},
    "failed": {"failed", "paid", "fulfilled"},  # only by staff (checked below)
}
TTL = timedelta(hours=24)
QVAPAY_MAX_AGE = 300
PEER_GONE = "El peer de esta compra ya no existe; contacte con soporte."
NO_SERVER = "No hay servidores disponibles temporalmente."
NOT_FULFILLED, RETRIED = "Pago recibido, pero no se pudo completar la compra:", "Lo reintentaremos en unos minutos."
USERS = ("ana", "beto")


@dataclass
class ModelPeer:
    user: int
    name: str
    expiration: datetime | None
    id: str | None = None  # known once the database made it
    active: bool = True
    history: list[str] = field(default_factory=list)


@dataclass
class ModelInvoice:
    remote_id: str
    id: str
    user: int
    gateway: str
    mode: str
    plan: int
    peer_name: str
    peer: ModelPeer | None
    created: datetime
    status: str = "pending"
    reference: str | None = None
    updated: datetime | None = None
    problem: str | None = None

    @property
    def amount(self) -> Decimal:
        return PLANS[self.plan][2]


@dataclass(frozen=True)
class Sent:
    """A notification the gateway sent (it may arrive any number of times, late, or never)."""

    gateway: str
    remote_id: str
    reference: str
    path: str
    body: bytes
    headers: tuple[tuple[str, str], ...]
    stamp: int  # when it was sent (QvaPay signs and dates its webhooks)


class InvoiceFulfilment(ServicesMachine):
    def __init__(self, services: Services, loop: asyncio.AbstractEventLoop, world: World) -> None:
        super().__init__(services, loop)
        self.client, self.clock = world.client, world.clock
        self.fakes: dict[str, Any] = {"qvapay": world.qvapay, "remesita": world.remesita}
        self.jobs = Jobs(services)
        self.users: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.browsers: list[RecordingSocket] = []
        self.expected_pushes: list[list[dict[str, Any]]] = [[], []]
        self.plan_ids: list[str] = []
        self.peers: list[ModelPeer] = []
        self.model: dict[str, ModelInvoice] = {}  # by remote id, in purchase order
        self.outbox: list[Sent] = []  # every notification the gateways sent
        self.seen_status: dict[str, str] = {}
        self.trouble = {name: "up" for name in GATEWAYS}
        self.touched: set[str] = set()
        self.server_full = False
        self.answered: Counter[str] = Counter()  # how notifications were answered (the fixed walk checks its paths)

    # --- the world --------------------------------------------------------------------------------------------

    @initialize()
    def world(self) -> None:
        # Each example starts at the real now (the sessions opened below are signed with it), in whole seconds.
        self.clock.now = system_time().replace(microsecond=0)
        for fake in self.fakes.values():
            fake.reset()

        async def build() -> None:
            await _empty_database(self.services)
            async with self.services.sessionmaker.begin() as db:
                await self.services.switches.update(
                    db, {"allow_payments_qvapay": True, "allow_payments_remesita": True}
                )
                for name, hours, price in PLANS:
                    self.plan_ids.append((await add_plan(db, name, hours, price, "Un dispositivo")).id)
            server = await make_server(self.services)
            for n, username in enumerate(USERS):
                user = await make_user(self.services, username)
                self.users.append(user.id)
                self.headers.append(bearer(await login(self.client, username)))
                browser = RecordingSocket()
                self.services.hub.attach(user.id, browser)
                self.browsers.append(browser)
                # One peer each made by staff: ana's ends in three days, beto's has no end (unlimited).
                expiration = self.clock.now + timedelta(days=3) if n == 0 else None
                async with self.services.sessionmaker.begin() as db:
                    target = await db.get(Server, server.id)
                    name = ("casa", "oficina")[n]
                    peer = await self.services.peers.create(
                        db, user.id, name, server=target, expiration_date=expiration
                    )
                    self.peers.append(ModelPeer(n, name, expiration, peer.id))
            await make_user(self.services, "jefa", role=Role.ADMIN)
            self.admin = bearer(await login(self.client, "jefa", admin=True))

        self.run(build())

    def teardown(self) -> None:
        for user_id, browser in zip(self.users, self.browsers, strict=False):
            self.services.hub.detach(user_id, browser)

    # --- customers ---------------------------------------------------------------------------------------------

    @rule(
        user=st.integers(0, 1),
        new_peer=st.booleans(),
        pick=st.integers(0, 5),
        gateway=st.sampled_from(GATEWAYS),
        plan=st.integers(0, 1),
        then=st.sampled_from(["pay", "pay", "pay_wrong_amount", "cancel", "leave"]),
        delivered=st.sampled_from([True, True, False]),
    )
    def a_customer_buys(
        self, user: int, new_peer: bool, pick: int, gateway: str, plan: int, then: str, delivered: bool
    ) -> None:
        """A purchase, usually followed at once by what the customer does on the gateway's page."""
        self.clock.advance(timedelta(seconds=1))  # invoices apart in time: the jobs take them in creation order
        if new_peer:
            name = NAMES[pick % len(NAMES)]
            target: ModelPeer | None = None
            peer_ref = name
        else:
            own = [p for p in self.peers if p.user == user and p.id is not None]
            if not own:
                return
            target = own[pick % len(own)]
            name, peer_ref = target.name, str(target.id)
        body = {"mode": "new_peer" if new_peer else "add_plan", "plan": self.plan_ids[plan], "peer": peer_ref}
        answer = self.http("PUT", "/api/client/invoices", json={**body, "gateway": gateway}, headers=self.headers[user])
        if new_peer and self._name_taken(user, name):
            assert (answer.status_code, answer.json().get("code")) == (409, "peer_name_taken"), answer.text
            return
        if self.trouble[gateway] == "down":
            assert (answer.status_code, answer.json().get("code")) == (502, "gateway_unavailable"), answer.text
            row = self.run(self._newest_invoice(self.users[user]))
            invoice = ModelInvoice(row.remote_id, row.id, user, gateway, body["mode"], plan, name, target, self.now)
            invoice.status, invoice.updated, invoice.problem = "failed", self.now, row.problem
            assert row.problem, "a purchase the gateway could not take is kept for the admins with its reason"
        else:
            assert answer.status_code == 200, answer.text
            created = answer.json()
            assert created["gateway"] == gateway
            assert created["message"] == f"Factura creada. Complete el pago en {LABELS[gateway]}."
            remote_id = created["remote_id"]
            assert created["payment_url"].startswith(self.fakes[gateway].url)
            row = self.run(self._invoice_row(remote_id))
            invoice = ModelInvoice(remote_id, row.id, user, gateway, body["mode"], plan, name, target, self.now)
            invoice.reference, invoice.updated = self._gateway_reference(gateway, remote_id), self.now
        self.model[invoice.remote_id] = invoice
        self.touched.add(invoice.remote_id)
        if then != "leave":
            self._at_the_gateway(invoice, then, delivered)

    @precondition(lambda self: bool(self.model))
    @rule(
        recent=st.integers(0, 5),
        action=st.sampled_from(["pay", "pay", "pay_wrong_amount", "cancel"]),
        delivered=st.sampled_from([True, True, False]),
    )
    def at_the_gateway(self, recent: int, action: str, delivered: bool) -> None:
        """The customer acts on the gateway's page (reachable only while the gateway is up) and comes back; the
        gateway notifies, usually at once (and it may arrive again later)."""
        invoice = self._recent(recent)
        if invoice is not None:
            self._at_the_gateway(invoice, action, delivered)

    def _at_the_gateway(self, invoice: ModelInvoice, action: str, delivered: bool) -> None:
        if invoice.reference is None or invoice.reference.startswith(MANUAL_PREFIX):
            return
        if self.trouble[invoice.gateway] == "down":
            return
        status, _ = self._truth(invoice.gateway, invoice.reference)
        fake = self.fakes[invoice.gateway]
        if action == "cancel":
            if status != PaymentStatus.PENDING:
                return
            fake.cancel(invoice.reference)
        else:
            if status == PaymentStatus.PAID:
                return  # a payment page takes one payment
            fake.pay(invoice.reference, Decimal("0.50") if action == "pay_wrong_amount" else None)
        self._back_from_the_gateway(invoice, "canceled" if action == "cancel" else "success")
        sent = self._notification(invoice)
        self.outbox.append(sent)
        if delivered:
            self._arrives(sent, "as_sent")

    @precondition(lambda self: bool(self.outbox))
    @rule(
        recent=st.integers(0, 5),
        how=st.sampled_from(["as_sent", "as_sent", "bad_secret", "claims_paid", "other_invoice"]),
    )
    def notification_arrives(self, recent: int, how: str) -> None:
        """A notification arrives: one the gateway sent (again, out of order, maybe late), or a forged one: wrong
        signature or URL key, a body that claims 'paid', or one naming another invoice."""
        if self.outbox:
            self._arrives(self.outbox[-1 - recent % len(self.outbox)], how)

    def _arrives(self, sent: Sent, how: str) -> None:
        invoice = self.model[sent.remote_id]
        self.touched.add(invoice.remote_id)
        path, body, headers = sent.path, sent.body, dict(sent.headers)
        if how == "bad_secret":
            if sent.gateway == "qvapay":
                headers["X-QvaPay-Signature"] = _sign(body, "no-es-el-secreto")
            else:
                path = path.split("?", 1)[0] + "?key=adivinado"
            answer = self.http("POST", path, content=body, headers=headers)
            assert (answer.status_code, answer.json().get("code")) == (401, "notification_refused"), answer.text
            return
        if how == "other_invoice":
            others = [i for i in self.model.values() if i.remote_id != invoice.remote_id]
            if not others:
                return
            other = others[len(body) % len(others)]
            data = json.loads(body)
            if sent.gateway == "qvapay":
                data["remote_id"] = other.remote_id
            else:
                data["custom_id"] = other.remote_id
            body = json.dumps(data).encode()
            if sent.gateway == "qvapay":
                headers["X-QvaPay-Signature"] = _sign(body)
            answer = self.http("POST", path, content=body, headers=headers)
            if sent.gateway == "remesita":  # the URL's key is this invoice's: the body must name it
                assert answer.status_code == 401, answer.text
                return
            self.touched.add(other.remote_id)
            self._expect_notification(answer, other, sent)
            return
        if how == "claims_paid":  # the body lies; only what the gateway answers when asked counts
            data = json.loads(body)
            data["status"] = "paid"
            body = json.dumps(data).encode()
            if sent.gateway == "qvapay":
                headers["X-QvaPay-Signature"] = _sign(body)
        answer = self.http("POST", path, content=body, headers=headers)
        self._expect_notification(answer, invoice, sent)

    def _back_from_the_gateway(self, invoice: ModelInvoice, status: str) -> None:
        """Coming back "canceled" makes the control plane read the payment back (never on the browser's word)."""
        asked = status == "canceled" and invoice.status == "pending" and invoice.reference is not None
        if asked and self.trouble[invoice.gateway] != "down":
            self._settle(invoice, *self._truth(invoice.gateway, str(invoice.reference)))
        path = f"/api/payments/return/{invoice.remote_id}?status={status}"
        answer = self.http("GET", path, follow_redirects=False)
        assert answer.status_code == 302
        target = urlsplit(answer.headers["location"])
        expected = {"status": [status], "remote_id": [invoice.remote_id]}
        if invoice.reference:
            expected["transaction_uuid"] = [invoice.reference]
        assert (target.path, parse_qs(target.query)) == ("/dashboard/payment", expected)

    # --- gateways, time and jobs ----------------------------------------------------------------------------------

    @rule(
        change=st.sampled_from(
            ["qvapay up", "qvapay down", "qvapay slow", "remesita up", "remesita down", "remesita slow", "full", "room"]
        )
    )
    def the_world_changes(self, change: str) -> None:
        """A gateway goes down (503), slow (late, yet within the control plane's timeout) or back up; or the only
        server fills up (a paid new peer then waits, `paid` with the reason in `problem`, for the job) or has room."""
        if change in ("full", "room"):
            self.server_full = change == "full"

            async def go() -> None:
                async with self.services.sessionmaker.begin() as db:
                    await db.execute(update(Server).values(capacity=0 if self.server_full else 250))

            self.run(go())
            return
        gateway, trouble = change.split()
        self.trouble[gateway] = trouble
        fake = self.fakes[gateway]
        fake.down, fake.delay = trouble == "down", 0.02 if trouble == "slow" else 0.0

    @rule(
        step=st.sampled_from([timedelta(0), timedelta(minutes=4), timedelta(minutes=20), timedelta(hours=2), TTL]),
        job=st.sampled_from(["reconcile_invoices", "expire_invoices", "expire_peers", "none"]),
    )
    def time_passes_and_a_job_runs(self, step: timedelta, job: str) -> None:
        self.clock.advance(step if step != TTL or job != "none" else 30 * TTL)
        if job != "none":
            {
                "reconcile_invoices": self._reconciliation,
                "expire_invoices": self._invoice_expiry,
                "expire_peers": self._peer_expiry,
            }[job]()

    def _reconciliation(self) -> None:
        handled = self.run(self.jobs.run_once("reconcile_invoices", self.services.invoices.reconcile, 60))
        assert handled is not None, "the reconciliation job failed"
        expected = self._reconcile()
        assert handled == expected, (handled, expected)
        # Nothing paid is left unfulfilled, unless there is nothing to fulfil it on (the peer is gone, no server has
        # room); the model must agree, but this is read from the database.
        for stored in self.run(self._database())[0].values():
            if stored.status.value == "paid":
                stuck = (stored.mode.value, stored.problem)
                assert stuck in {("add_plan", PEER_GONE), ("new_peer", NO_SERVER)}, stuck
                assert stored.peer_id is None and (stored.problem == PEER_GONE or self.server_full)

    def _invoice_expiry(self) -> None:
        expired = self.run(self.jobs.run_once("expire_invoices", self.services.invoices.expire_stale, 300))
        due = [i for i in self.model.values() if i.status == "pending" and i.created < self.now - TTL]
        for invoice in due:
            invoice.status, invoice.updated = "expired", self.now
        assert expired == len(due)

    def _peer_expiry(self) -> None:
        disabled = self.run(self.jobs.run_once("expire_peers", self.services.peers.expire_due, 60))
        due = [p for p in self.peers if p.active and p.expiration is not None and p.expiration <= self.now]
        for peer in due:
            peer.active = False
        assert disabled == len(due)

    # --- staff and the unexpected ----------------------------------------------------------------------------------

    @precondition(lambda self: bool(self.model))
    @rule(recent=st.integers(0, 5), note=st.sampled_from(["transferencia recibida", ""]))
    def admin_marks_paid(self, recent: int, note: str) -> None:
        """Staff settle by hand: pending or expired invoices freely, failed or canceled ones with a reason."""
        invoice = self._recent(recent)
        if invoice is None:
            return
        self.touched.add(invoice.remote_id)
        path = f"/api/admin/invoices/{invoice.id}/manual-payment"
        answer = self.http("POST", path, json={"note": note}, headers=self.admin)
        if invoice.status not in STAFF_CREDITABLE:
            assert (answer.status_code, answer.json().get("code")) == (409, "invoice_not_creditable"), answer.text
            return
        if invoice.status in ("failed", "canceled") and not note:
            assert (answer.status_code, answer.json().get("code")) == (422, "note_required"), answer.text
            return
        assert answer.status_code == 200, answer.text
        self._credit(invoice, f"{MANUAL_PREFIX}{invoice.id}")
        assert answer.json()["status"] == invoice.status and answer.json()["manual"] is True

    @precondition(lambda self: bool(self.peers))
    @rule(pick=st.integers(0, 9), plan=st.integers(0, 1), deleted=st.sampled_from([False, False, True]))
    def a_peer_changes(self, pick: int, plan: int, deleted: bool) -> None:
        """Staff extend a peer, or it is deleted (PeerService.delete; no route does it yet), perhaps while an
        extension of it is pending."""
        if not self.peers:
            return
        if deleted:
            self._delete_peer(pick)
            return
        peer = self.peers[pick % len(self.peers)]
        answer = self.http(
            "POST", f"/api/admin/peers/{peer.id}/plans", json={"plan": self.plan_ids[plan]}, headers=self.admin
        )
        assert answer.status_code == 200, answer.text
        if peer.expiration is not None:  # staff extending an unlimited peer leave it unlimited
            peer.expiration = max(self.now, peer.expiration) + timedelta(hours=PLANS[plan][1])
        peer.history.append(PLANS[plan][0])
        peer.active = True

    def _delete_peer(self, pick: int) -> None:
        peer = self.peers.pop(pick % len(self.peers))

        async def go() -> None:
            async with transaction(self.services.sessionmaker) as db:
                await self.services.peers.delete(db, await self.services.peers.by_id(db, str(peer.id)))

        self.run(go())
        for invoice in self.model.values():
            if invoice.peer is peer:
                invoice.peer = None

    @precondition(lambda self: bool(self.model))
    @rule(recent=st.integers(0, 5), notifications=st.integers(1, 3), with_admin=st.booleans())
    def everything_at_once(self, recent: int, notifications: int, with_admin: bool) -> None:
        """The customer pays, and the gateway's notifications, the job reading the same payment and (maybe) an admin
        marking it paid all arrive at the same moment: it is credited once."""
        invoice = self._recent(recent)
        if invoice is None:
            return
        remote_id = invoice.remote_id
        if invoice.status not in CREDITABLE or invoice.reference is None or invoice.reference.startswith(MANUAL_PREFIX):
            return
        if self.trouble[invoice.gateway] == "down" or self._truth(invoice.gateway, invoice.reference)[0] is (
            PaymentStatus.PAID
        ):
            return
        self.touched.add(remote_id)
        self.fakes[invoice.gateway].pay(invoice.reference)
        sent = self._notification(invoice)
        invoices = self.services.invoices
        gateway = invoices.gateways[invoice.gateway]
        path = {"remote_id": remote_id, "secret": sent.path.split("key=")[-1]} if sent.gateway == "remesita" else {}
        headers = {k.lower(): v for k, v in sent.headers}

        async def the_job() -> Any:
            return await invoices.settle(invoice.id, await gateway.lookup(str(invoice.reference), remote_id))

        async def the_admin() -> Any:
            manual = PaymentRecord(f"{MANUAL_PREFIX}{invoice.id}", remote_id, invoice.amount, PaymentStatus.PAID)
            return await invoices.settle(invoice.id, manual)

        async def together() -> list[Any]:
            calls = [invoices.notified(sent.gateway, sent.body, headers, path) for _ in range(notifications)]
            calls += [the_job()] + ([the_admin()] if with_admin else [])
            return await asyncio.gather(*calls, return_exceptions=True)

        outcomes = self.run(together())
        for outcome in outcomes:
            # A notification that reads the invoice after the admin's credit names another payment: refused.
            assert not isinstance(outcome, BaseException) or isinstance(outcome, NotificationRefused), outcome
        assert sum(getattr(o, "credited", False) for o in outcomes) == 1, outcomes
        self._credit(invoice, self.run(self._invoice_row(remote_id)).transaction_id or "")

    # --- the model ------------------------------------------------------------------------------------------------

    @property
    def now(self) -> datetime:
        return self.clock.now

    def _recent(self, recent: int) -> ModelInvoice | None:
        """One of the latest invoices (customers act on what they just bought; drawing from all of them would
        mostly revisit old ones)."""
        latest = list(self.model.values())[-6:]
        return latest[-1 - recent % len(latest)] if latest else None

    def _name_taken(self, user: int, name: str) -> bool:
        return any(p.user == user and p.name.lower() == name.lower() for p in self.peers)

    def _truth(self, gateway: str, reference: str) -> tuple[PaymentStatus, Decimal]:
        """What the gateway itself holds about a payment (the fakes stand for the real world here)."""
        fake = self.fakes[gateway]
        with fake.lock:
            record = fake.invoices[reference] if gateway == "qvapay" else fake.links[reference]
            status, amount = record["status"], Decimal(record["amount"])
        return {"paid": PaymentStatus.PAID, "cancelled": PaymentStatus.CANCELED}.get(
            status, PaymentStatus.PENDING
        ), amount

    def _gateway_reference(self, gateway: str, remote_id: str) -> str:
        fake = self.fakes[gateway]
        return str(
            fake.by_remote_id(remote_id)["uuid"] if gateway == "qvapay" else fake.by_custom_id(remote_id)["reference"]
        )

    def _notification(self, invoice: ModelInvoice) -> Sent:
        assert invoice.reference is not None
        stamp = int(self.now.timestamp())
        if invoice.gateway == "qvapay":
            path, body, headers = self.fakes["qvapay"].notification(invoice.reference, timestamp=stamp)
        else:
            (path, body), headers = self.fakes["remesita"].notification(invoice.reference), {}
        headers = {**headers, "Content-Type": "application/json"}
        return Sent(invoice.gateway, invoice.remote_id, invoice.reference, path, body, tuple(headers.items()), stamp)

    def _expect_notification(self, answer: Any, invoice: ModelInvoice, sent: Sent) -> None:
        """What the control plane must answer to a verified-looking notification about `invoice`."""
        late = sent.gateway == "qvapay" and abs(self.now.timestamp() - sent.stamp) > QVAPAY_MAX_AGE
        if invoice.gateway != sent.gateway and not late:
            assert (answer.status_code, answer.json().get("code")) == (404, "invoice_not_found"), answer.text
            return
        by_hand = (invoice.reference or "").startswith(MANUAL_PREFIX)
        settled_by_hand = by_hand and invoice.status in ("paid", "fulfilled")
        if settled_by_hand and not late:
            # Acknowledged so that the gateway stops retrying; nothing more is credited (docs/payments.md).
            self.answered["settled by hand"] += 1
            assert answer.status_code == 200, answer.text
            assert answer.json() == {"received": True, "credited": False, "result": "settled_by_hand"}
            return
        other_payment = invoice.reference is not None and invoice.reference != sent.reference
        self.answered["late" if late else "other payment" if other_payment else self.trouble[sent.gateway]] += 1
        if late or other_payment:
            assert (answer.status_code, answer.json().get("code")) == (401, "notification_refused"), answer.text
            return
        if self.trouble[sent.gateway] == "down":
            assert (answer.status_code, answer.json().get("code")) == (502, "gateway_unavailable"), answer.text
            return
        assert answer.status_code == 200, answer.text
        if invoice.reference is None:  # the notification's payment is read back, and it is not this invoice's
            assert answer.json() == {"received": True, "credited": False, "result": "other_payment"}
            return
        result = self._settle(invoice, *self._truth(sent.gateway, sent.reference))
        self.answered[result] += 1
        assert answer.json() == {"received": True, "credited": result == "credited", "result": result}

    def _settle(self, invoice: ModelInvoice, status: PaymentStatus, amount: Decimal) -> str:
        """InvoiceService.settle, as the docs tell it."""
        if status is PaymentStatus.PENDING:
            invoice.updated = self.now
            return "pending"
        if status is PaymentStatus.CANCELED:
            if invoice.status == "pending":
                invoice.status, invoice.updated = "canceled", self.now
            return "canceled"
        if amount != invoice.amount:
            if invoice.status in CREDITABLE:
                invoice.status, invoice.updated = "failed", self.now
                invoice.problem = f"importe pagado {amount} USD distinto del de la factura {invoice.amount} USD"
            return "amount_mismatch"
        if invoice.status not in CREDITABLE:
            return "already_handled"
        self._credit(invoice, str(invoice.reference))
        return "credited"

    def _credit(self, invoice: ModelInvoice, reference: str) -> None:

        invoice.reference, invoice.updated, invoice.problem = reference, self.now, None
        invoice.status = "paid"
        self._fulfil(invoice)

    def _fulfil(self, invoice: ModelInvoice) -> None:
        name, validity = PLANS[invoice.plan][0], timedelta(hours=PLANS[invoice.plan][1])
        pushes = self.expected_pushes[invoice.user]
        invoice.updated = self.now
        if invoice.mode == "new_peer":
            if self.server_full:
                self._not_fulfilled(invoice, NO_SERVER)
                return
            base = invoice.peer_name
            chosen = next(
                c for c in [base] + [f"{base[:28]}-{n}" for n in range(2, 100)] if not self._name_taken(invoice.user, c)
            )
            made = ModelPeer(invoice.user, chosen, self.now + validity, history=[name])
            self.peers.append(made)
            invoice.peer, invoice.peer_name = made, chosen
            pushes.append({"type": "success", "message": f"Pago recibido. Creando el peer {chosen}...", "peer": made})
        else:
            peer = invoice.peer
            if peer is None:
                self._not_fulfilled(invoice, PEER_GONE)
                return
            # PeerService.add_plan; a paid plan on a peer staff made without an end counts from now.
            peer.expiration = max(self.now, peer.expiration or self.now) + validity
            peer.history.append(name)
            peer.active = True
            pushes.append({"type": "updated_peer", "peer": peer, "expiration": peer.expiration})
            message = f"Pago recibido. Plan {name} añadido al peer {peer.name}."
            pushes.append({"type": "success", "message": message, "peer": peer})
        invoice.status, invoice.problem = "fulfilled", None

    def _not_fulfilled(self, invoice: ModelInvoice, problem: str) -> None:
        """Paid, kept for the job to retry; the customer hears of it once, not at every retry."""
        if invoice.problem != problem:
            message = f"{NOT_FULFILLED} {problem} {RETRIED}"
            self.expected_pushes[invoice.user].append({"type": "error", "message": message})
        invoice.problem = problem

    def _reconcile(self) -> int:
        """InvoiceService.reconcile: pending invoices (and expired ones within two lifetimes) that are due are read
        back, oldest first; then paid ones not fulfilled yet are retried."""
        credited = 0
        for invoice in sorted(self.model.values(), key=lambda i: i.created):
            if invoice.reference is None or self.trouble[invoice.gateway] == "down":
                continue
            waiting = invoice.status == "pending" or (
                invoice.status == "expired" and invoice.created > self.now - 2 * TTL
            )
            assert invoice.updated is not None
            due = invoice.created > self.now - timedelta(hours=1) or invoice.updated < self.now - timedelta(minutes=15)
            if waiting and due:
                self.touched.add(invoice.remote_id)
                if self._settle(invoice, *self._truth(invoice.gateway, invoice.reference)) == "credited":
                    credited += 1
        for invoice in self.model.values():
            if invoice.status == "paid":
                self._fulfil(invoice)
                credited += invoice.status == "fulfilled"
        return credited

    # --- talking to the control plane ---------------------------------------------------------------------------

    def http(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.run(self.client.request(method, path, **kwargs))

    async def _invoice_row(self, remote_id: str) -> Invoice:
        async with self.services.sessionmaker() as db:
            return (await db.execute(select(Invoice).where(Invoice.remote_id == remote_id))).scalar_one()

    async def _newest_invoice(self, user_id: str) -> Invoice:
        async with self.services.sessionmaker() as db:
            query = select(Invoice).where(Invoice.user_id == user_id).order_by(Invoice.created.desc()).limit(1)
            return (await db.execute(query)).scalar_one()

    async def _database(self) -> tuple[dict[str, Invoice], dict[str, Peer]]:
        async with self.services.sessionmaker() as db:
            invoices = {i.remote_id: i for i in (await db.execute(select(Invoice))).scalars()}
            peers = (await db.execute(select(Peer).options(selectinload(Peer.plans_history)))).scalars()
            return invoices, {p.id: p for p in peers}

    # --- invariants -----------------------------------------------------------------------------------------------

    @invariant()
    def after_every_step(self) -> None:
        """One read of the database per step, checked four ways."""
        if not self.users:
            return
        invoices, peers = self.run(self._database())
        self._adopt_new_peers(peers)
        # The checks that do not lean on the model come first, so a failure names the broken rule when they can.
        self.invoices_only_move_forward(invoices)
        self.only_real_payments_are_credited(invoices)
        self.the_database_is_what_was_paid_for(invoices, peers)
        self.the_customer_hears_and_sees_the_database()

    def the_database_is_what_was_paid_for(self, invoices: dict[str, Invoice], peers: dict[str, Peer]) -> None:
        assert sorted(peers) == sorted(str(p.id) for p in self.peers), "a peer was created, or lost, unpaid"
        for peer in self.peers:
            stored = peers[str(peer.id)]
            assert (stored.user_id, stored.name, stored.active) == (self.users[peer.user], peer.name, peer.active)
            assert stored.expiration_date == peer.expiration, (peer.name, stored.expiration_date, peer.expiration)
            assert Counter(h.plan_name for h in stored.plans_history) == Counter(peer.history), peer.name
        assert sorted(invoices) == sorted(self.model)
        for remote_id, invoice in self.model.items():
            stored_invoice = invoices[remote_id]
            assert stored_invoice.status.value == invoice.status, (remote_id, stored_invoice.status, invoice.status)
            assert stored_invoice.transaction_id == invoice.reference
            assert stored_invoice.updated == invoice.updated, remote_id
            assert stored_invoice.peer_id == (invoice.peer.id if invoice.peer else None)
            assert stored_invoice.peer_name == invoice.peer_name
            assert stored_invoice.problem == invoice.problem, remote_id
            assert stored_invoice.amount == invoice.amount

    def _adopt_new_peers(self, peers: dict[str, Peer]) -> None:
        """Peers made by payments get their id here (found by name: names are unique per customer)."""
        for peer in self.peers:
            if peer.id is None:
                found = [p for p in peers.values() if p.user_id == self.users[peer.user] and p.name == peer.name]
                assert found, f"the paid peer {peer.name} was not created"
                peer.id = found[0].id

    def invoices_only_move_forward(self, invoices: dict[str, Invoice]) -> None:
        for remote_id, invoice in invoices.items():
            before, now = self.seen_status.get(remote_id, "pending"), invoice.status.value
            assert now in FORWARD[before], f"{remote_id}: {before} -> {now}"
            if before == "failed" and now != "failed":
                assert str(invoice.transaction_id).startswith(MANUAL_PREFIX), (
                    f"{remote_id}: a gateway credited a failure"
                )
            self.seen_status[remote_id] = now

    def only_real_payments_are_credited(self, invoices: dict[str, Invoice]) -> None:
        """Independent of the model: each credited invoice is paid at its gateway, to the cent, or marked by staff."""
        for invoice in invoices.values():
            if invoice.status.value not in ("paid", "fulfilled"):
                continue
            reference = str(invoice.transaction_id)
            if reference.startswith(MANUAL_PREFIX):
                assert reference == f"{MANUAL_PREFIX}{invoice.id}"
                continue
            status, amount = self._truth(invoice.gateway, reference)
            assert (status, amount) == (PaymentStatus.PAID, invoice.amount), invoice.remote_id

    def the_customer_hears_and_sees_the_database(self) -> None:
        for user, browser in enumerate(self.browsers):
            heard = [_heard(push) for push in browser.received]
            expected = [self._expected_push(push) for push in self.expected_pushes[user]]
            assert heard == expected, (heard, expected)
            peers = self.http("GET", "/api/client/accounts/peers", headers=self.headers[user])
            assert peers.status_code == 200
            listed = {p["id"]: p for p in peers.json()}
            own = [p for p in self.peers if p.user == user]
            assert sorted(listed) == sorted(str(p.id) for p in own)
            for peer in own:
                shown = listed[str(peer.id)]
                expiration = shown["expiration_date"]
                assert (datetime.fromisoformat(expiration) if expiration else None) == peer.expiration
                assert shown["active"] == peer.active
                assert Counter(h["plan_name"] for h in shown["plans_history"]) == Counter(peer.history)
        for remote_id in sorted(self.touched):
            invoice = self.model[remote_id]
            answer = self.http("GET", f"/api/client/invoices/{remote_id}", headers=self.headers[invoice.user])
            assert answer.status_code == 200, answer.text
            shown = answer.json()
            assert (shown["status"], shown["peer_name"], shown["transaction_uuid"]) == (
                invoice.status,
                invoice.peer_name,
                invoice.reference,
            )
            assert (shown["amount"], shown["plan_name"]) == (f"{invoice.amount:.2f}", PLANS[invoice.plan][0])
            other = self.http("GET", f"/api/client/invoices/{remote_id}", headers=self.headers[1 - invoice.user])
            assert other.status_code == 404
        self.touched.clear()

    def _expected_push(self, push: dict[str, Any]) -> tuple[Any, ...]:
        peer = push.get("peer")
        peer_id = peer.id if peer is not None else None
        if push["type"] == "updated_peer":
            return ("updated_peer", None, peer_id, push["expiration"])
        return (push["type"], push["message"], peer_id, None)


def _heard(push: dict[str, Any]) -> tuple[Any, ...]:
    data = push.get("data") or {}
    if push["type"] == "updated_peer":
        expiration = data["expiration_date"]
        return (
            "updated_peer",
            push.get("message"),
            data["id"],
            datetime.fromisoformat(expiration) if expiration else None,
        )
    return (push["type"], push.get("message"), data.get("peer_id"), None)


def _sign(body: bytes, secret: str = qvapay_fake.APP_SECRET) -> str:
    return signature(secret, body)


@dataclass
class World:
    client: httpx.AsyncClient
    clock: ManualClock
    qvapay: FakeQvaPay
    remesita: FakeRemesita


@pytest.fixture(scope="module")
def fakes() -> Iterator[tuple[FakeQvaPay, FakeRemesita]]:
    with FakeQvaPay() as qvapay, FakeRemesita() as remesita:
        yield qvapay, remesita  # type: ignore[misc]


@contextmanager
def shop(
    database_url: str, tmp_path: Path, fakes: tuple[FakeQvaPay, FakeRemesita]
) -> Iterator[tuple[Services, asyncio.AbstractEventLoop, World]]:
    """The app on the machine's loop, the fake gateways, and the control plane's clock in the test's hands."""
    qvapay, remesita = fakes
    overrides = {
        **gateway_settings(qvapay, remesita),
        # Time moves up to a few years in an example: sessions opened at its start must outlive it.
        "refresh_token_days_remember": 3650,
        "rate_limits": RateLimits(**{name: LOOSE for name in RateLimits.__struct_fields__}),
    }
    with (
        machine_services(database_url, tmp_path, **overrides) as (services, loop),
        machine_client(services, loop) as client,
        manual_clock() as clock,
    ):
        yield services, loop, World(client, clock, qvapay, remesita)


def test_invoice_fulfilment_keeps_its_invariants(
    database_url: str, tmp_path: Path, fakes: tuple[FakeQvaPay, FakeRemesita]
) -> None:
    with shop(database_url, tmp_path, fakes) as (services, loop, world):
        run_machine(lambda: InvoiceFulfilment(services, loop, world), examples=10, steps=40)


def test_the_rare_paths_hold_the_same_invariants(
    database_url: str, tmp_path: Path, fakes: tuple[FakeQvaPay, FakeRemesita]
) -> None:
    """The machine's few examples may miss the rarer paths; here they are walked once, in a fixed order, with every
    invariant checked after each step: a paid extension whose peer was deleted, a paid new peer waiting for a
    server, two purchases of one name, a gateway down at purchase and while notifying, a notification that never
    came, one that came a day late, and an expired invoice paid afterwards."""
    with shop(database_url, tmp_path, fakes) as (services, loop, world):
        machine = InvoiceFulfilment(services, loop, world)
        steps: list[Callable[[], None]] = [
            machine.world,
            lambda: machine.a_customer_buys(0, True, 0, "qvapay", 0, "pay", delivered=False),  # never notified
            lambda: machine.a_customer_buys(0, False, 0, "remesita", 1, "leave", delivered=False),
            lambda: machine.a_customer_buys(1, True, 1, "remesita", 0, "leave", delivered=False),
            lambda: machine.a_customer_buys(1, True, 1, "qvapay", 1, "leave", delivered=False),  # the same name
            lambda: machine.a_peer_changes(0, 0, deleted=True),  # ana's peer, with its extension pending
            lambda: machine.at_the_gateway(2, "pay", delivered=True),  # paid: stays paid, the peer is gone
            lambda: machine.the_world_changes("full"),
            lambda: machine.at_the_gateway(1, "pay", delivered=True),  # beto's 'movil': waits for room
            lambda: machine.at_the_gateway(0, "pay", delivered=False),  # and the second 'movil'
            lambda: machine.time_passes_and_a_job_runs(timedelta(minutes=4), "reconcile_invoices"),
            lambda: machine.the_world_changes("room"),
            lambda: machine.the_world_changes("qvapay down"),
            lambda: machine.a_customer_buys(1, True, 2, "qvapay", 0, "leave", delivered=False),  # 502
            lambda: machine.notification_arrives(0, "as_sent"),  # 502: the payment cannot be read back
            lambda: machine.time_passes_and_a_job_runs(timedelta(0), "reconcile_invoices"),
            lambda: machine.the_world_changes("qvapay up"),
            lambda: machine.time_passes_and_a_job_runs(timedelta(minutes=20), "reconcile_invoices"),  # movil-2
            lambda: machine.a_customer_buys(0, True, 2, "qvapay", 0, "leave", delivered=False),
            lambda: machine.a_customer_buys(0, True, 1, "remesita", 1, "leave", delivered=False),
            lambda: machine.time_passes_and_a_job_runs(timedelta(hours=25), "expire_invoices"),
            lambda: machine.notification_arrives(0, "as_sent"),  # a day late: refused as a replay
            lambda: machine.at_the_gateway(1, "pay", delivered=True),  # expired, then paid: credited
            lambda: machine.at_the_gateway(0, "cancel", delivered=True),  # expired, then canceled: stays expired
            lambda: machine.everything_at_once(1, 3, with_admin=True),
            lambda: machine.time_passes_and_a_job_runs(timedelta(minutes=20), "reconcile_invoices"),
            lambda: machine.time_passes_and_a_job_runs(timedelta(0), "expire_peers"),
        ]
        for step in steps:
            step()
            machine.after_every_step()
        machine.teardown()
        statuses = Counter(i.status for i in machine.model.values())
        assert statuses["paid"] == 1 and statuses["fulfilled"] >= 4 and statuses["failed"] == 1, statuses
        assert statuses["expired"] == 1, statuses
        assert {"late", "down", "credited", "canceled"} <= set(machine.answered), machine.answered
        assert any(p.name == "movil-2" for p in machine.peers)
