"""Invoices from the manager: filters, the gateway's record, manual payment credited exactly once, revenue."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.db import utcnow
from controlplane.domain.invoices.models import Invoice, InvoiceStatus
from controlplane.domain.peers.models import Peer
from controlplane.services import Services
from tests.api.manager.world import audit_count, build_world, last_audit

METRICS_TOKEN = "metricas-de-prueba-0123456789"


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"metrics_token": METRICS_TOKEN}


async def payments_counted(client: AsyncTestClient[Any], outcome: str) -> float:
    """What an operator's Prometheus sees in vpn_payments_total for the qvapay gateway (0 before the first)."""
    text = (await client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})).text
    series = f'vpn_payments_total{{gateway="qvapay",outcome="{outcome}"}}'
    return next((float(line.rpartition(" ")[2]) for line in text.splitlines() if line.startswith(series + " ")), 0.0)


async def test_filter_and_read_the_gateway_record(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    pending = (await client.get("/api/admin/invoices", params={"status": "pending"}, headers=world.support)).json()
    [row] = pending["items"]
    assert row["username"] == "ana" and row["amount"] == "5.00" and row["gateway"] == "qvapay"
    assert row["gateway_label"] == "QvaPay"  # the brand staff read, not the code
    none = await client.get("/api/admin/invoices", params={"gateway": "remesita"}, headers=world.support)
    assert none.json()["total"] == 0
    by_user = await client.get("/api/admin/invoices", params={"user": world.ids["user"]}, headers=world.support)
    assert by_user.json()["total"] == 1
    detail = (await client.get(f"/api/admin/invoices/{world.ids['invoice']}", headers=world.support)).json()
    assert detail["gateway_record"]["created"]["transaction_uuid"] == "qp-123"
    missing = await client.get("/api/admin/invoices/nope", headers=world.support)
    assert missing.status_code == 404 and missing.json()["message"] == "Factura no encontrada."


async def test_manual_payment_fulfils_once_and_counts_as_revenue(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    async with services.sessionmaker.begin() as db:
        peer = await db.get(Peer, world.ids["peer"])
        assert peer is not None
        peer.expiration_date = utcnow() + timedelta(days=2)
    path = f"/api/admin/invoices/{world.ids['invoice']}/manual-payment"
    answer = await client.post(path, json={"note": "transferencia 42"}, headers=world.admin)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "fulfilled" and body["manual"] is True
    assert body["gateway_record"]["payment"] == {"manual": True, "by": "jefa", "note": "transferencia 42"}
    entry = await last_audit(services)
    assert entry.action == "invoice.manual_payment" and "transferencia 42" in entry.summary

    before = await audit_count(services)
    again = await client.post(path, json={}, headers=world.admin)
    assert again.status_code == 409 and again.json()["code"] == "invoice_not_creditable"
    assert await audit_count(services) == before
    peer_view = (await client.get("/api/client/accounts/peers", headers=world.customer)).json()[0]
    assert [h["plan_name"] for h in peer_view["plans_history"]] == ["Mensual"]  # credited once

    overview = (await client.get("/api/admin/overview", headers=world.admin)).json()
    [revenue] = overview["revenue"]
    assert revenue["gateway"] == "manual" and revenue["amount"] == "5.00" and revenue["invoices"] == 1
    assert revenue["gateway_label"] == "Pago manual"
    assert revenue["period"] == utcnow().strftime("%Y-%m")
    daily = (await client.get("/api/admin/overview", params={"period": "day"}, headers=world.admin)).json()
    assert daily["revenue"][0]["period"] == utcnow().strftime("%Y-%m-%d")
    bad = await client.get("/api/admin/overview", params={"period": "year"}, headers=world.admin)
    assert bad.status_code == 422


async def test_manual_payment_its_audit_entry_and_its_count_commit_together(
    services: Services, client: AsyncTestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """If writing the audit entry fails, the credit rolls back with it: no paid invoice without its entry, and no
    payment counted in the metrics for a credit that never committed."""
    world = await build_world(services, client)
    path = f"/api/admin/invoices/{world.ids['invoice']}/manual-payment"
    record = services.audit.record

    async def record_then_fail(*args: Any, **kwargs: Any) -> Any:
        await record(*args, **kwargs)  # the entry is written (flushed) and then the write fails
        raise OSError("disco lleno")

    monkeypatch.setattr(services.audit, "record", record_then_fail)
    failed = await client.post(path, json={"note": "transferencia 42"}, headers=world.admin)
    assert failed.status_code == 500
    assert await audit_count(services) == 0
    detail = (await client.get(f"/api/admin/invoices/{world.ids['invoice']}", headers=world.admin)).json()
    assert detail["status"] == "pending" and detail["paid_at"] is None and detail["transaction_id"] is None
    peer_view = (await client.get("/api/client/accounts/peers", headers=world.customer)).json()[0]
    assert peer_view["plans_history"] == []  # the peer was not extended either
    # Nor counted: a settle that rolled back is no payment for the metrics.
    assert await payments_counted(client, "paid") == 0 and await payments_counted(client, "fulfilled") == 0

    monkeypatch.setattr(services.audit, "record", record)
    again = await client.post(path, json={"note": "transferencia 42"}, headers=world.admin)
    assert again.status_code == 200 and again.json()["status"] == "fulfilled"
    assert await audit_count(services) == 1
    peer_view = (await client.get("/api/client/accounts/peers", headers=world.customer)).json()[0]
    assert [h["plan_name"] for h in peer_view["plans_history"]] == ["Mensual"]
    assert await payments_counted(client, "paid") == 1 and await payments_counted(client, "fulfilled") == 1


async def set_invoice(services: Services, invoice_id: str, **values: Any) -> None:
    async with services.sessionmaker.begin() as db:
        invoice = await db.get(Invoice, invoice_id)
        assert invoice is not None
        for name, value in values.items():
            setattr(invoice, name, value)


async def test_admin_settles_a_failed_invoice_with_a_reason(services: Services, client: AsyncTestClient[Any]) -> None:
    """The gateway reported a wrong amount; the admin checked the money arrived and settles it, saying how."""
    world = await build_world(services, client)
    problem = "importe pagado 0.50 USD distinto del de la factura 5.00 USD"
    wrong = {"uuid": "qp-123", "amount": "0.50", "status": "paid"}
    created = {"transaction_uuid": "qp-123"}
    await set_invoice(
        services,
        world.ids["invoice"],
        status=InvoiceStatus.FAILED,
        problem=problem,
        transaction_id="qp-123",
        gateway_record={"created": created, "payment": wrong},
    )
    path = f"/api/admin/invoices/{world.ids['invoice']}/manual-payment"

    silent = await client.post(path, json={"note": "  "}, headers=world.admin)
    assert silent.status_code == 422 and silent.json()["code"] == "note_required"
    assert silent.json()["message"].startswith("La factura está fallida: indique el motivo del pago manual")
    assert await audit_count(services) == 0
    support = await client.post(path, json={"note": "lo vi"}, headers=world.support)
    assert support.status_code == 403

    answer = await client.post(path, json={"note": "resto recibido por transferencia 77"}, headers=world.admin)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "fulfilled" and body["manual"] is True and body["problem"] is None
    assert body["transaction_id"] == f"manual-{world.ids['invoice']}"
    record = body["gateway_record"]
    assert record["earlier_payment"] == wrong  # what the gateway said stays readable
    assert record["payment"] == {
        "manual": True,
        "by": "jefa",
        "note": "resto recibido por transferencia 77",
        "settled_from": "failed",
        "problem": problem,
    }
    entry = await last_audit(services)
    assert entry.action == "invoice.manual_payment"
    assert entry.summary == (
        f"Pago manual de 5.00 USD (Mensual, ana) sobre una factura fallida ({problem}): "
        "resto recibido por transferencia 77"
    )
    peer_view = (await client.get("/api/client/accounts/peers", headers=world.customer)).json()[0]
    assert [h["plan_name"] for h in peer_view["plans_history"]] == ["Mensual"]
    again = await client.post(path, json={"note": "otra vez"}, headers=world.admin)
    assert again.status_code == 409 and again.json()["code"] == "invoice_not_creditable"


async def test_a_canceled_invoice_needs_a_reason_an_expired_one_does_not(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    path = f"/api/admin/invoices/{world.ids['invoice']}/manual-payment"
    await set_invoice(services, world.ids["invoice"], status=InvoiceStatus.CANCELED)
    refused = await client.post(path, json={}, headers=world.admin)
    assert refused.status_code == 422 and refused.json()["message"].startswith("La factura está cancelada:")
    assert refused.json()["fields"] == {"note": "Obligatorio para una factura fallida o cancelada."}

    await set_invoice(services, world.ids["invoice"], status=InvoiceStatus.EXPIRED)
    answer = await client.post(path, json={}, headers=world.admin)
    assert answer.status_code == 200 and answer.json()["status"] == "fulfilled"
    assert answer.json()["gateway_record"]["payment"]["settled_from"] == "expired"
    assert (await last_audit(services)).summary == "Pago manual de 5.00 USD (Mensual, ana) sobre una factura vencida"
