"""Payment links, "alguien paga por mí" (issue 33, item 4b), against the local fake gateways: the owner makes a
link, a stranger with no account opens it and pays, the owner's peer is extended once whatever the gateway
repeats, the payer sees what they pay for and nothing else of the account, and a revoked or expired link stops
working with a Spanish sentence."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import update

from controlplane.db import utcnow
from controlplane.domain.invoices.models import InvoiceStatus
from controlplane.domain.paylinks.models import PaymentLink
from controlplane.domain.peers.models import Peer
from controlplane.jobs.scheduler import Jobs
from controlplane.services import Services
from controlplane.settings import RateLimit, RateLimits
from tests.api.factories import make_peer
from tests.api.test_payments import MONTH, Shop, close_to
from tests.fakes.gateways import gateway_settings
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita

LINKS = "/api/client/payment-links"
PUBLIC = "/api/public/payment-links"


@pytest.fixture
def settings_overrides(qvapay: FakeQvaPay, remesita: FakeRemesita, request: pytest.FixtureRequest) -> dict[str, Any]:
    marker = request.node.get_closest_marker("link_reads_per_address")
    limits = {"rate_limits": RateLimits(payment_link_reads_per_address=RateLimit(*marker.args))} if marker else {}
    return {**limits, **gateway_settings(qvapay, remesita, timeout=15.0)}


@pytest.fixture
async def shop(services: Services, client: AsyncTestClient[Any], qvapay: FakeQvaPay, remesita: FakeRemesita) -> Shop:
    made = Shop(services, client, {"qvapay": qvapay, "remesita": remesita})
    await made.setup(qvapay=True, remesita=True)
    return made


async def ana_peer(shop: Shop, name: str = "movil") -> Peer:
    assert shop.server is not None
    peer = await make_peer(shop.services, shop.user, name, shop.server)
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(update(Peer).where(Peer.id == peer.id).values(expiration_date=utcnow() + timedelta(days=10)))
        return await db.get_one(Peer, peer.id)


async def make_link(shop: Shop, peer: Peer) -> dict[str, Any]:
    answer = await shop.client.post(LINKS, json={"peer": peer.id, "plan": shop.plan.id}, headers=shop.headers)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]  # type: ignore[no-any-return]


def token_of(link: dict[str, Any]) -> str:
    path = urlsplit(link["url"]).path
    assert path.startswith("/pagar/")
    return path.removeprefix("/pagar/")


async def pay(shop: Shop, token: str, gateway: str) -> Any:
    # A stranger's browser: no Authorization header at all.
    return await shop.client.post(f"{PUBLIC}/{token}/pay", json={"gateway": gateway})


@pytest.mark.parametrize("gateway", ["qvapay", "remesita"])
async def test_a_stranger_pays_through_the_link_and_the_peer_is_extended_once(shop: Shop, gateway: str) -> None:
    peer = await ana_peer(shop)
    link = await make_link(shop, peer)
    assert (link["peer_name"], link["plan_name"], link["amount"]) == ("movil", "Mensual", "5.00")
    token = token_of(link)
    assert len(token) >= 32

    # The payer opens the page without logging in: what they pay, for which device, and nothing else.
    page = await shop.client.get(f"{PUBLIC}/{token}")
    assert page.status_code == 200, page.text
    seen = page.json()
    assert seen["plan_name"] == "Mensual" and seen["amount"] == "5.00" and seen["peer_name"] == "movil"
    assert seen["validity_hours"] == 720
    assert [g["name"] for g in seen["gateways"]] == ["qvapay", "remesita"]
    assert seen["payment"] is None

    answer = await pay(shop, token, gateway)
    assert answer.status_code == 200, answer.text
    remote_id = answer.json()["remote_id"]
    assert answer.json()["payment_url"]
    invoice = await shop.invoice(remote_id)
    assert (invoice.user_id, invoice.peer_id, invoice.mode.value) == (shop.user.id, peer.id, "add_plan")

    # The gateway notifies twice (a retry), and the reconciliation job looks again: one credit.
    first = await shop.pay_and_notify(remote_id, gateway)
    assert first.status_code == 200 and first.json()["credited"] is True
    again = await shop.pay_and_notify(remote_id, gateway) if gateway == "remesita" else None
    if gateway == "qvapay":
        fake: FakeQvaPay = shop.fakes["qvapay"]
        path, body, headers = fake.notification(fake.by_remote_id(remote_id)["uuid"])
        again = await shop.client.post(path, content=body, headers={**headers, "Content-Type": "application/json"})
    assert again is not None and again.status_code == 200 and again.json()["credited"] is False
    assert await Jobs(shop.services).run_once("reconcile_invoices", shop.services.invoices.reconcile, 60) == 0
    stored = {p.name: p for p in await shop.peers()}
    assert peer.expiration_date is not None
    assert close_to(stored["movil"].expiration_date, peer.expiration_date + MONTH)
    assert await shop.history_rows() == 1
    assert (await shop.invoice(remote_id)).status is InvoiceStatus.FULFILLED
    # The owner hears of it live, as for a plan bought by themselves.
    assert "Plan Mensual añadido al peer movil" in shop.pushes("success")[0]["message"]

    # Back from the gateway, the payer lands on the link's page, which tells that payment's state.
    back = await shop.client.get(f"/api/payments/return/{remote_id}?status=success", follow_redirects=False)
    assert back.status_code == 302
    target = urlsplit(back.headers["location"])
    assert target.path == f"/pagar/{token}"
    assert parse_qs(target.query) == {"status": ["success"], "payment": [remote_id]}
    after = (await shop.client.get(f"{PUBLIC}/{token}", params={"payment": remote_id})).json()
    assert after["payment"] == {"remote_id": remote_id, "status": "fulfilled", "status_text": "Pagada"}


async def test_concurrent_notifications_of_a_link_payment_credit_once(shop: Shop) -> None:
    peer = await ana_peer(shop)
    token = token_of(await make_link(shop, peer))
    remote_id = (await pay(shop, token, "qvapay")).json()["remote_id"]
    fake: FakeQvaPay = shop.fakes["qvapay"]
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction)
    answers = await asyncio.gather(*(shop.client.post(path, content=body, headers=headers) for _ in range(5)))
    assert [a.status_code for a in answers] == [200] * 5
    assert sum(a.json()["credited"] for a in answers) == 1
    assert await shop.history_rows() == 1


async def test_the_payer_sees_nothing_else_of_the_account(shop: Shop) -> None:
    peer = await ana_peer(shop)
    other = await ana_peer(shop, "portatil")
    own_purchase = (await shop.buy("add_plan", other.id)).json()["remote_id"]
    token = token_of(await make_link(shop, peer))
    seen = (await shop.client.get(f"{PUBLIC}/{token}")).json()
    text = str(seen)
    for secret in ("ana", shop.user.id, peer.id, other.id, "portatil", peer.address, shop.user.email or "@"):
        assert secret not in text.replace("Mensual", ""), secret
    assert set(seen) == {
        "plan_name", "plan_description", "validity_hours", "amount", "peer_name", "owner", "expires_at",
        "gateways", "payment",
    }  # fmt: skip
    # The owner's own invoice is not readable through the link, even by its remote id...
    assert (await shop.client.get(f"{PUBLIC}/{token}", params={"payment": own_purchase})).json()["payment"] is None
    # ...and the link gives no session: the owner's data stays behind login.
    for path in ("/api/client/accounts/peers", "/api/client/invoices", LINKS):
        assert (await shop.client.get(path)).status_code == 401


async def test_a_revoked_or_expired_link_is_refused_in_spanish(shop: Shop) -> None:
    peer = await ana_peer(shop)
    first = await make_link(shop, peer)
    second = await make_link(shop, peer)
    listed = (await shop.client.get(LINKS, headers=shop.headers)).json()
    assert [item["id"] for item in listed] == [second["id"], first["id"]]

    answer = await shop.client.delete(f"{LINKS}/{first['id']}", headers=shop.headers)
    assert answer.status_code == 200
    assert answer.json()["message"] == "Enlace de pago anulado: ya nadie puede pagar con él."
    for call in (shop.client.get(f"{PUBLIC}/{token_of(first)}"), pay(shop, token_of(first), "qvapay")):
        refused = await call
        assert refused.status_code == 410
        assert refused.json() == {
            "message": "Este enlace de pago fue anulado por quien lo compartió. Pídale uno nuevo.",
            "code": "payment_link_revoked",
        }
    async with shop.services.sessionmaker.begin() as db:
        await db.execute(
            update(PaymentLink).where(PaymentLink.id == second["id"]).values(expires_at=utcnow() - timedelta(seconds=1))
        )
    refused = await pay(shop, token_of(second), "qvapay")
    assert refused.status_code == 410
    assert refused.json() == {
        "message": "Este enlace de pago venció. Pida uno nuevo a quien se lo compartió.",
        "code": "payment_link_expired",
    }
    assert (await shop.client.get(LINKS, headers=shop.headers)).json() == []
    unknown = await shop.client.get(f"{PUBLIC}/{'x' * 32}")
    assert unknown.status_code == 404
    assert unknown.json()["message"] == "Este enlace de pago no existe. Revise que lo copió completo."


async def test_only_the_owner_makes_or_revokes_links_for_their_peers(
    shop: Shop, services: Services, client: AsyncTestClient[Any]
) -> None:
    from tests.api.factories import bearer, login, make_user

    peer = await ana_peer(shop)
    await make_user(services, "beto")
    beto = bearer(await login(client, "beto"))
    answer = await client.post(LINKS, json={"peer": peer.id, "plan": shop.plan.id}, headers=beto)
    assert (answer.status_code, answer.json()["code"]) == (404, "peer_not_found")
    link = await make_link(shop, peer)
    answer = await client.delete(f"{LINKS}/{link['id']}", headers=beto)
    assert (answer.status_code, answer.json()["code"]) == (404, "payment_link_not_found")
    assert (await client.get(LINKS, headers=beto)).json() == []
    assert (await client.get(f"{PUBLIC}/{token_of(link)}")).status_code == 200  # still live


@pytest.mark.link_reads_per_address(3, 600)
async def test_the_public_endpoints_are_limited_per_address(shop: Shop) -> None:
    peer = await ana_peer(shop)
    token = token_of(await make_link(shop, peer))
    statuses = [(await shop.client.get(f"{PUBLIC}/{token}")).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    # Guessing counts the same as reading: the fourth call from this address is refused, whatever the token.
    for path in (f"{PUBLIC}/{token}", f"{PUBLIC}/{'y' * 32}"):
        refused = await shop.client.get(path)
        assert refused.status_code == 429
        assert "Retry-After" in refused.headers
