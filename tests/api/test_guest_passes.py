"""Guest passes (issue 33, item 4a), against the local fake gateways: a room owner buys a pass through the invoice
machine, paid once whatever the gateway repeats; a friend claims it with their own account and gets a peer in that
room only, which cannot be taken elsewhere or renewed and ends by itself; a used, unpaid, expired or unknown link
is refused in Spanish; nobody sees another buyer's passes."""

from __future__ import annotations

import asyncio
import io
from datetime import timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import pytest
import wgconfig
from litestar.testing import AsyncTestClient
from sqlalchemy import select, update

from controlplane.db import transaction, utcnow
from controlplane.domain.accounts.models import User
from controlplane.domain.guest_passes.models import GuestPass
from controlplane.domain.invoices.models import InvoiceStatus
from controlplane.domain.peers.models import Peer
from controlplane.domain.plans.models import Plan
from controlplane.domain.plans.service import add_plan
from controlplane.domain.servers.models import Server
from controlplane.jobs.scheduler import Jobs
from controlplane.nodes.desired_state import delta_message, full_state
from controlplane.nodes.models import NodeOperation, OperationKind
from controlplane.services import Services
from protos import agent_pb2
from tests.api.factories import make_peer, make_server
from tests.api.test_payments import Shop, close_to
from tests.api.test_rooms import PEERS, ROOMS, Person, create, join, node_answers, person
from tests.fakes.gateways import gateway_settings
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita

PASSES = "/api/client/guest-passes"
PUBLIC = "/api/public/guest-passes"
DAY = timedelta(hours=24)


@pytest.fixture
def settings_overrides(qvapay: FakeQvaPay, remesita: FakeRemesita) -> dict[str, Any]:
    return gateway_settings(qvapay, remesita, timeout=15.0)


class Party:
    """Ana's shop (gateways on, a monthly plan) plus a 24 h guest-pass plan and Ana's room 'LAN' with her peer;
    Beto, her friend, and Caro, a stranger, have accounts."""

    def __init__(self, shop: Shop, pass_plan: Plan, room: dict[str, Any], beto: Person, caro: Person) -> None:
        self.shop, self.pass_plan, self.room, self.beto, self.caro = shop, pass_plan, room, beto, caro

    @property
    def client(self) -> AsyncTestClient[Any]:
        return self.shop.client

    async def buy(self, gateway: str = "qvapay", headers: dict[str, str] | None = None, **extra: Any) -> Any:
        body = {"party": self.room["id"], "plan": self.pass_plan.id, "gateway": gateway, **extra}
        return await self.client.post(PASSES, json=body, headers=headers or self.shop.headers)

    async def listed(self, headers: dict[str, str] | None = None) -> list[dict[str, Any]]:
        answer = await self.client.get(PASSES, headers=headers or self.shop.headers)
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]

    async def bought_and_paid(self, gateway: str = "qvapay") -> str:
        """A paid pass's claim token."""
        answer = await self.buy(gateway)
        assert answer.status_code == 200, answer.text
        assert (await self.shop.pay_and_notify(answer.json()["remote_id"], gateway)).json()["credited"] is True
        (ready,) = [p for p in await self.listed() if p["id"] == answer.json()["data"]["id"]]
        return token_of(ready)

    async def claim(self, token: str, who: Person, **body: Any) -> Any:
        return await self.client.post(f"{PASSES}/claim/{token}", json=body, headers=who.headers)


def token_of(view: dict[str, Any]) -> str:
    assert view["status"] == "ready" and view["url"], view
    path = urlsplit(view["url"]).path
    assert path.startswith("/pase/")
    return path.removeprefix("/pase/")


@pytest.fixture
async def party(services: Services, client: AsyncTestClient[Any], qvapay: FakeQvaPay, remesita: FakeRemesita) -> Party:
    shop = Shop(services, client, {"qvapay": qvapay, "remesita": remesita})
    await shop.setup(qvapay=True, remesita=True)
    async with services.sessionmaker.begin() as db:
        await db.execute(update(User).where(User.id == shop.user.id).values(alias="Ana", alias_key="ana"))
        pass_plan = await add_plan(db, "Pase 24 h", 24, Decimal("1.50"), "Una noche de LAN")
        pass_plan.guest_pass = True
    assert shop.server is not None
    ana_peer = await make_peer(services, shop.user, "ana-pc", shop.server)
    await node_answers(services)
    owner = Person(shop.user, shop.headers, shop.browser)  # type: ignore[arg-type]
    room = await create(client, owner, "LAN", ana_peer)
    beto = await person(services, client, "beto")
    caro = await person(services, client, "caro")
    return Party(shop, pass_plan, room, beto, caro)


async def room_members(party: Party) -> list[str]:
    answer = await party.client.get(f"{ROOMS}/{party.room['id']}", headers=party.shop.headers)
    assert answer.status_code == 200, answer.text
    return [p["name"] for p in answer.json()["peers"]]


async def beto_peer(services: Services, beto: Person) -> Peer:
    async with services.sessionmaker() as db:
        return (await db.execute(select(Peer).where(Peer.user_id == beto.user.id))).scalar_one()


@pytest.mark.parametrize("gateway", ["qvapay", "remesita"])
async def test_the_owner_buys_a_pass_once_and_the_friend_claims_a_peer_in_that_room(
    party: Party, services: Services, gateway: str
) -> None:
    shop = party.shop
    plans = (await party.client.get(f"{PASSES}/plans", headers=shop.headers)).json()
    assert [(p["name"], p["hours"], p["price"]) for p in plans] == [("Pase 24 h", 24, "1.50")]

    answer = await party.buy(gateway)
    assert answer.status_code == 200, answer.text
    bought = answer.json()
    assert bought["payment_url"].startswith(shop.fakes[gateway].url)
    assert bought["data"]["status"] == "pending_payment" and bought["data"]["url"] is None  # no link before paying
    invoice = await shop.invoice(bought["remote_id"])
    assert (invoice.mode.value, invoice.amount, invoice.user_id) == ("guest_pass", Decimal("1.50"), shop.user.id)

    # The gateway notifies, then again (a retry), and the reconciliation job looks too: one credit.
    first = await shop.pay_and_notify(bought["remote_id"], gateway)
    assert first.status_code == 200 and first.json()["credited"] is True
    if gateway == "qvapay":
        fake: FakeQvaPay = shop.fakes["qvapay"]
        path, body, headers = fake.notification(fake.by_remote_id(bought["remote_id"])["uuid"])
        again = await party.client.post(path, content=body, headers={**headers, "Content-Type": "application/json"})
    else:
        again = await shop.pay_and_notify(bought["remote_id"], gateway)
    assert again.status_code == 200 and again.json()["credited"] is False
    assert await Jobs(services).run_once("reconcile_invoices", services.invoices.reconcile, 60) == 0
    assert (await shop.invoice(bought["remote_id"])).status is InvoiceStatus.FULFILLED
    assert [p["message"] for p in shop.pushes("success")] == [
        "Pago recibido. El pase de invitado para la sala LAN está listo: copie el enlace y envíelo."
    ]
    (ready,) = await party.listed()
    assert (ready["status"], ready["status_text"]) == ("ready", "Listo para compartir")
    token = token_of(ready)
    assert len(token) >= 32

    # The friend's page, before logging in: the room, who invites, how long. No session is needed to read it.
    seen = (await party.client.get(f"{PUBLIC}/{token}")).json()
    assert (seen["party_name"], seen["owner"], seen["hours"]) == ("LAN", "Ana", 24)
    assert set(seen) == {"party_name", "owner", "plan_name", "hours", "claim_by"}

    claimed = await party.claim(token, party.beto, name="beto-pc")
    assert claimed.status_code == 200, claimed.text
    assert claimed.json()["message"] == "Pase reclamado: su peer beto-pc entra en la sala LAN durante 24 horas."
    peer = await beto_peer(services, party.beto)
    assert close_to(peer.expiration_date, utcnow() + DAY)
    assert await room_members(party) == ["ana-pc", "beto-pc"]
    # Beto sees the room as a guest, and the node was asked to create the peer and to update the room.
    guest_rooms = (await party.client.get(ROOMS, headers=party.beto.headers)).json()["guest_partys"]
    assert [r["name"] for r in guest_rooms] == ["LAN"]

    (used,) = await party.listed()
    assert (used["status"], used["guest"], used["url"]) == ("claimed", "Beto", None)
    assert close_to(msgspec_time(used["ends_at"]), utcnow() + DAY)

    # Once: a second claim, by anyone, is refused with its own status.
    for who in (party.caro, party.beto):
        again_claim = await party.claim(token, who)
        assert again_claim.status_code == 410
        assert again_claim.json() == {
            "message": "Este pase de invitado ya fue reclamado: cada pase sirve una sola vez.",
            "code": "guest_pass_claimed",
        }
    assert (await party.client.get(f"{PUBLIC}/{token}")).status_code == 410


def msgspec_time(text: str) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(text)


async def test_concurrent_notifications_make_one_pass_ready(party: Party, services: Services) -> None:
    answer = await party.buy("qvapay")
    remote_id = answer.json()["remote_id"]
    fake: FakeQvaPay = party.shop.fakes["qvapay"]
    transaction = fake.by_remote_id(remote_id)["uuid"]
    fake.pay(transaction)
    path, body, headers = fake.notification(transaction)
    answers = await asyncio.gather(*(party.client.post(path, content=body, headers=headers) for _ in range(5)))
    assert [a.status_code for a in answers] == [200] * 5
    assert sum(a.json()["credited"] for a in answers) == 1
    assert len(party.shop.pushes("success")) == 1
    assert [p["status"] for p in await party.listed()] == ["ready"]


async def test_two_friends_claiming_at_once_get_one_peer(party: Party, services: Services) -> None:
    token = await party.bought_and_paid()
    answers = await asyncio.gather(party.claim(token, party.beto), party.claim(token, party.caro))
    assert sorted(a.status_code for a in answers) == [200, 410]
    async with services.sessionmaker() as db:
        guests = (await db.execute(select(Peer).where(Peer.user_id != party.shop.user.id))).scalars().all()
    assert len(guests) == 1
    assert len(await room_members(party)) == 2


async def test_the_guest_peer_stays_in_its_room_and_cannot_be_renewed(party: Party, services: Services) -> None:
    token = await party.bought_and_paid()
    assert (await party.claim(token, party.beto)).status_code == 200
    peer = await beto_peer(services, party.beto)
    assert peer.name == "invitado"
    await node_answers(services)
    locked = {
        "message": "Este peer es de un pase de invitado: solo sirve en la sala del pase, no da acceso a internet "
        "y vence solo. "
        "Para usarlo en otra sala o renovarlo, compre un plan para un peer propio.",
        "code": "guest_pass_peer",
    }
    # Out of the room (leaving is allowed), it cannot join nor make another one.
    left = await party.client.patch(
        f"{ROOMS}/{party.room['id']}", json={"operation": "leave", "peer": peer.id}, headers=party.beto.headers
    )
    assert left.status_code in (200, 204), left.text
    await node_answers(services)
    made = await party.client.post(ROOMS, json={"name": "Otra", "peer": peer.id}, headers=party.beto.headers)
    assert (made.status_code, made.json()) == (409, locked)
    password = party.room["password"]
    rejoined = await join(party.client, party.beto, "LAN", password, peer)
    assert (rejoined.status_code, rejoined.json()) == (409, locked)
    # Not renewable as a normal plan, by its owner or through a payment link.
    renew = await party.client.put(
        "/api/client/invoices",
        json={"mode": "add_plan", "plan": party.shop.plan.id, "peer": peer.id},
        headers=party.beto.headers,
    )
    assert (renew.status_code, renew.json()) == (409, locked)
    link = await party.client.post(
        "/api/client/payment-links", json={"peer": peer.id, "plan": party.shop.plan.id}, headers=party.beto.headers
    )
    assert (link.status_code, link.json()) == (409, locked)


async def test_a_pass_plan_is_only_sold_as_a_pass(party: Party) -> None:
    catalogue = (await party.client.get("/api/client/plans")).json()
    assert [p["name"] for p in catalogue] == ["Mensual"]
    as_peer = await party.client.put(
        "/api/client/invoices",
        json={"mode": "new_peer", "plan": party.pass_plan.id, "peer": "nuevo"},
        headers=party.shop.headers,
    )
    assert as_peer.status_code == 404 and as_peer.json()["code"] == "plan_not_found"
    as_mode = await party.client.put(
        "/api/client/invoices",
        json={"mode": "guest_pass", "plan": party.shop.plan.id, "peer": "nuevo"},
        headers=party.shop.headers,
    )
    assert as_mode.status_code == 422 and as_mode.json()["code"] == "invalid_mode"
    ordinary = await party.buy(plan=party.shop.plan.id)
    assert ordinary.status_code == 404
    assert ordinary.json()["message"] == "Plan de pase de invitado no encontrado."


async def test_unknown_unpaid_expired_and_roomless_links_say_why(party: Party, services: Services) -> None:
    unknown = await party.client.get(f"{PUBLIC}/{'x' * 32}")
    assert (unknown.status_code, unknown.json()["message"]) == (
        404,
        "Este pase de invitado no existe. Revise que copió el enlace completo.",
    )
    unpaid = await party.buy("qvapay")
    async with services.sessionmaker() as db:
        stored = await db.get_one(GuestPass, unpaid.json()["data"]["id"])
        unpaid_token = services.box.decrypt(stored.token_enc)
    refused = await party.claim(unpaid_token, party.beto)
    assert (refused.status_code, refused.json()["code"]) == (409, "guest_pass_not_paid")
    assert refused.json()["message"].startswith("Este pase de invitado todavía no está pagado.")

    late = await party.bought_and_paid()
    async with services.sessionmaker.begin() as db:
        await db.execute(
            update(GuestPass)
            .where(GuestPass.token_hash == services.box.lookup_hash(late))
            .values(claim_by=utcnow() - timedelta(minutes=1))
        )
    expired = await party.claim(late, party.beto)
    assert expired.status_code == 410
    assert expired.json() == {
        "message": "Este pase de invitado venció sin ser reclamado. Pida uno nuevo a quien se lo regaló.",
        "code": "guest_pass_expired",
    }
    assert "Venció sin reclamar" in [p["status_text"] for p in await party.listed()]

    orphan = await party.bought_and_paid()
    deleted = await party.client.delete(f"{ROOMS}/{party.room['id']}", headers=party.shop.headers)
    assert deleted.status_code in (200, 204), deleted.text
    gone = await party.claim(orphan, party.beto)
    assert (gone.status_code, gone.json()["code"]) == (410, "guest_pass_room_gone")
    assert (gone.json()["message"]) == "La sala de este pase de invitado ya no existe."


async def test_nobody_sees_or_buys_passes_of_another_owner(party: Party) -> None:
    assert (await party.buy()).status_code == 200
    assert await party.listed(party.beto.headers) == []
    assert await party.listed(party.caro.headers) == []
    # Beto is not in the room: it answers like a missing one. Once a member, still only its owner buys passes.
    outsider = await party.buy(headers=party.beto.headers)
    assert (outsider.status_code, outsider.json()["code"]) == (404, "party_not_found")
    token = await party.bought_and_paid()
    assert (await party.claim(token, party.beto)).status_code == 200
    member = await party.buy(headers=party.beto.headers)
    assert member.status_code == 403
    assert member.json()["message"] == "Solo el administrador de la sala puede comprar pases de invitado para ella."


async def test_the_pass_ends_by_itself_and_its_peer_leaves_room_and_node(party: Party, services: Services) -> None:
    token = await party.bought_and_paid()
    assert (await party.claim(token, party.beto)).status_code == 200
    await node_answers(services)
    peer = await beto_peer(services, party.beto)
    # Its hours pass.
    async with services.sessionmaker.begin() as db:
        past = utcnow() - timedelta(seconds=1)
        await db.execute(update(Peer).where(Peer.id == peer.id).values(expiration_date=past))
        await db.execute(update(GuestPass).where(GuestPass.peer_id == peer.id).values(ends_at=past))
    jobs = Jobs(services)
    assert await jobs.run_once("expire_peers", services.peers.expire_due, 60) == 1
    assert await jobs.run_once("end_guest_passes", services.guest_passes.end_due, 60) == 1
    async with services.sessionmaker() as db:
        assert await db.get(Peer, peer.id) is None
        kinds = (await db.execute(select(NodeOperation.kind).where(NodeOperation.peer_id == peer.id))).scalars().all()
    assert OperationKind.DISABLE in kinds and OperationKind.REMOVE in kinds
    assert await room_members(party) == ["ana-pc"]
    (ended,) = await party.listed()
    assert (ended["status"], ended["status_text"], ended["guest"]) == ("ended", "Terminado", "Beto")
    assert await jobs.run_once("end_guest_passes", services.guest_passes.end_due, 60) == 0


async def node_messages(services: Services, server_id: str) -> tuple[agent_pb2.FullState, list[agent_pb2.Delta]]:
    """What the node is sent: its full state, and the deltas still pending for it."""
    async with transaction(services.sessionmaker) as db:
        server = await db.get_one(Server, server_id)
        pending = await services.operations.pending_after(db, server_id, 0)
        deltas = [await delta_message(db, services.box, operation) for operation in pending]
        return await full_state(db, services.box, server), deltas


async def test_the_node_is_told_the_guest_peer_reaches_only_its_room(party: Party, services: Services) -> None:
    """The guest's peer is sent marked room only (docs/rooms.md, "Guest peers"): in the claim's delta, in every
    snapshot, in its new keys' delta, and still when its room is gone (fail closed). The owner's peer never is."""
    token = await party.bought_and_paid()
    assert (await party.claim(token, party.beto, name="beto-pc")).status_code == 200
    guest = await beto_peer(services, party.beto)
    async with services.sessionmaker() as db:
        owner = (await db.execute(select(Peer).where(Peer.user_id == party.shop.user.id))).scalar_one()
    state, deltas = await node_messages(services, guest.server_id)
    assert {p.public_key: p.room_only for d in deltas for p in d.upsert_peers} == {guest.public_key: True}
    assert {p.public_key: p.room_only for p in state.peers} == {owner.public_key: False, guest.public_key: True}
    assert [sorted(r.members) for r in state.rooms] == [sorted([owner.address, guest.address])]
    await node_answers(services)

    # New keys for the guest's peer: the pending form the node takes carries the mark too.
    rotated = await party.client.patch(
        f"{PEERS}/{guest.id}", json={"operation": "regenerate"}, headers=party.beto.headers
    )
    assert rotated.status_code == 202, rotated.text
    _, deltas = await node_messages(services, guest.server_id)
    (delta,) = deltas
    assert list(delta.remove_peers) == [guest.public_key]
    assert [(p.public_key != guest.public_key, p.room_only) for p in delta.upsert_peers] == [(True, True)]
    await node_answers(services)

    # Ana deletes the room: the guest's peer is in no room until its pass ends, and still reaches nobody.
    deleted = await party.client.delete(f"{ROOMS}/{party.room['id']}", headers=party.shop.headers)
    assert deleted.status_code == 200, deleted.text
    await node_answers(services)
    async with services.sessionmaker() as db:
        guest = await db.get_one(Peer, guest.id)
    state, _ = await node_messages(services, guest.server_id)
    assert list(state.rooms) == []
    assert {p.public_key: p.room_only for p in state.peers} == {owner.public_key: False, guest.public_key: True}


def config_of(text: str) -> tuple[dict[str, Any], list[str]]:
    """A downloaded wg-quick file's [Interface] and its one peer's AllowedIPs."""
    config = wgconfig.WGConfig()
    config.read_from_fileobj(io.StringIO(text))
    (server_key,) = config.peers
    return config.interface, config.peers[server_key]["AllowedIPs"]


async def test_the_guest_file_routes_only_the_service_so_the_guest_keeps_their_internet(
    party: Party, services: Services
) -> None:
    """docs/rooms.md, "Guest pass peers": the claimed guest's file sends every server's tunnel subnet and LAN
    discovery (the limited broadcast, IPv4 multicast) into the tunnel and nothing else, with no DNS line; the owner's
    file is the usual whole tunnel. A server added later shows in the guest's next download and in the mirror
    link's text (a new ETag)."""
    token = await party.bought_and_paid()
    assert (await party.claim(token, party.beto, name="beto-pc")).status_code == 200
    await node_answers(services)
    guest = await beto_peer(services, party.beto)
    async with services.sessionmaker() as db:
        owner = (await db.execute(select(Peer).where(Peer.user_id == party.shop.user.id))).scalar_one()

    async def download(peer: Peer, who: dict[str, str]) -> str:
        answer = await party.client.get(f"{PEERS}/{peer.id}", headers=who)
        assert answer.status_code == 200, answer.text
        return answer.text

    guest_text = await download(guest, party.beto.headers)
    interface, allowed = config_of(guest_text)
    assert allowed == ["10.8.0.0/24", "224.0.0.0/4", "255.255.255.255/32"]
    assert "DNS" not in interface and "DNS" not in guest_text
    assert interface["Address"] == f"{guest.address}/32"
    owner_text = await download(owner, party.shop.headers)
    interface, allowed = config_of(owner_text)
    assert allowed == ["0.0.0.0/0", "::/0"] and "AllowedIPs = 0.0.0.0/0, ::/0\n" in owner_text
    assert interface["DNS"] == "1.1.1.1"

    # The mirror link hands out the same split file.
    (view,) = (await party.client.get(PEERS, headers=party.beto.headers)).json()
    mirror = urlsplit(view["mirror_link"]).path
    first = await party.client.get(mirror)
    assert first.status_code == 200 and first.text == guest_text

    # Staff add two servers (one IPv6): the guest's next download routes them too (room mates on other servers come
    # over the backbone), its own server's subnet still first; the owner's file does not change.
    await make_server(services, "Habana 2", "10.9.0.0/24")
    await make_server(services, "Habana 6", "fd00:9::/64")
    _, allowed = config_of(await download(guest, party.beto.headers))
    assert allowed == ["10.8.0.0/24", "10.9.0.0/24", "fd00:9::/64", "224.0.0.0/4", "255.255.255.255/32"]
    assert await download(owner, party.shop.headers) == owner_text
    again = await party.client.get(mirror, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 200 and again.headers["etag"] != first.headers["etag"]
    assert config_of(again.text)[1] == allowed
