"""The customer's own invoices ('Facturas'): newest first, the gateway's brand and the state in Spanish, the peer
by its current name; never another customer's."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.db import utcnow
from controlplane.domain.invoices.models import InvoiceStatus
from controlplane.domain.plans.service import add_plan
from controlplane.services import Services
from tests.api.factories import add_plan_invoice, bearer, login, make_peer, make_server, make_user

INVOICES = "/api/client/invoices"


async def test_a_customer_lists_their_own_invoices_and_never_anothers(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server = await make_server(services)
    ana = await make_user(services, "ana")
    beto = await make_user(services, "beto")
    ana_peer = await make_peer(services, ana, "movil", server)
    beto_peer = await make_peer(services, beto, "secreto-de-beto", server)
    now = utcnow()
    async with services.sessionmaker.begin() as db:
        plan = await add_plan(db, "Mensual", 720, Decimal("5.00"))
        month_ago = now - timedelta(days=30)
        add_plan_invoice(db, "ana-old", ana_peer, plan, status=InvoiceStatus.FULFILLED, created=month_ago,
                         paid_at=month_ago, transaction_id="qp-1")  # fmt: skip
        add_plan_invoice(db, "ana-new", ana_peer, plan, created=now - timedelta(days=1),
                         payment_url="https://qvapay.example/pay/ana-new")  # fmt: skip
        add_plan_invoice(db, "ana-canceled", ana_peer, plan, gateway="remesita", status=InvoiceStatus.CANCELED,
                         created=now - timedelta(days=2), payment_url="https://remesita.example/pay/old")  # fmt: skip
        add_plan_invoice(db, "beto-1", beto_peer, plan, status=InvoiceStatus.FULFILLED, paid_at=now)
    ana_headers = bearer(await login(client, "ana"))
    # Renamed since: the history shows the name the customer knows it by now.
    rename = {"operation": "rename", "name": "telefono"}
    renamed = await client.patch(f"/api/client/accounts/peers/{ana_peer.id}", json=rename, headers=ana_headers)
    assert renamed.is_success

    answer = await client.get(INVOICES, headers=ana_headers)
    assert answer.status_code == 200
    listed = answer.json()
    assert [i["remote_id"] for i in listed] == ["ana-new", "ana-canceled", "ana-old"]
    assert [(i["gateway_name"], i["status_text"], i["receipt"]) for i in listed] == [
        ("QvaPay", "Pendiente de pago", False),
        ("Remesita", "Cancelada", False),
        ("QvaPay", "Pagada", True),
    ]
    # Home offers to reopen the payment page of a pending invoice only: a canceled one's page takes no payment.
    assert [i["payment_url"] for i in listed] == ["https://qvapay.example/pay/ana-new", None, None]
    old = listed[2]
    assert (old["plan_name"], old["peer_name"], old["amount"], old["transaction_uuid"]) == (
        "Mensual", "telefono", "5.00", "qp-1",
    )  # fmt: skip
    assert old["paid_at"] is not None
    assert "beto" not in answer.text and "secreto" not in answer.text

    # Beto sees his own only, and cannot read Ana's one by one either.
    beto_headers = bearer(await login(client, "beto"))
    assert [i["remote_id"] for i in (await client.get(INVOICES, headers=beto_headers)).json()] == ["beto-1"]
    other = await client.get(f"{INVOICES}/ana-old", headers=beto_headers)
    assert other.status_code == 404 and other.json()["code"] == "invoice_not_found"


async def test_a_deleted_peer_keeps_its_name_in_the_history_and_without_a_session_nothing_is_listed(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server = await make_server(services)
    ana = await make_user(services, "ana")
    peer = await make_peer(services, ana, "viejo", server)
    async with services.sessionmaker.begin() as db:
        plan = await add_plan(db, "Anual", 8760, Decimal("40.00"))
        add_plan_invoice(db, "ana-1", peer, plan, status=InvoiceStatus.FULFILLED, paid_at=utcnow())
    async with services.sessionmaker.begin() as db:
        row = await services.peers.by_id(db, peer.id)
        await services.peers.delete(db, row)
    headers = bearer(await login(client, "ana"))
    [invoice] = (await client.get(INVOICES, headers=headers)).json()
    assert (invoice["peer_name"], invoice["amount"], invoice["plan_name"]) == ("viejo", "40.00", "Anual")
    assert (await client.get(INVOICES)).status_code == 401
