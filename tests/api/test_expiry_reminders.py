"""Expiry reminder emails: one 72 h and one 24 h before a peer's plan runs out, only to verified addresses, never
twice (re-runs, two processes at once), again for a renewed date, retried when the mail server refuses."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from decimal import Decimal
from email.header import decode_header, make_header
from email.message import Message

from sqlalchemy import select, update

from controlplane.db import transaction
from controlplane.domain.accounts.models import User
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.jobs.scheduler import Jobs
from controlplane.services import Services
from tests.api.factories import make_peer, make_server, make_user
from tests.clock import ManualClock, manual_clock
from tests.fakes.smtp import FakeSMTP


def subject(message: Message) -> str:
    return str(make_header(decode_header(message["Subject"])))


_schedulers: dict[int, Jobs] = {}


async def run_job(services: Services) -> int | None:
    """One run of the job on this test's process (one scheduler, which keeps the job's lease)."""
    jobs = _schedulers.setdefault(id(services), Jobs(services))
    return await jobs.run_once("expiry_reminders", services.reminders.send_due, 300)


async def expiring_peer(services: Services, clock: ManualClock, username: str, email: str | None, days: float) -> Peer:
    user = await make_user(services, username, email=email)
    async with services.sessionmaker() as db:
        server = (await db.execute(select(Server))).scalars().first()
    peer = await make_peer(services, user, "movil", server or await make_server(services))
    async with services.sessionmaker.begin() as db:
        await db.execute(
            update(Peer).where(Peer.id == peer.id).values(expiration_date=clock.now + timedelta(days=days))
        )
    return peer


async def test_a_verified_customer_gets_one_mail_at_72_hours_and_one_at_24(services: Services, smtp: FakeSMTP) -> None:
    with manual_clock() as clock:
        peer = await expiring_peer(services, clock, "ana", "ana@example.com", days=10)
        clock.advance(timedelta(days=6))  # 4 days left: nothing yet
        assert await run_job(services) == 0
        assert smtp.sent_to("ana@example.com") == []

        clock.advance(timedelta(days=1, minutes=1))  # just under 72 h left
        assert await run_job(services) == 1
        (first,) = smtp.sent_to("ana@example.com")
        assert subject(first) == "Su peer movil vence en 3 días - VPN Prueba"
        body = first.get_payload(decode=True).decode()
        assert "Hola ana" in body and "VPN Prueba" in body
        assert f"http://testserver.local/dashboard/plans?renew={peer.id}" in body

        for _ in range(3):  # later runs inside the same window send nothing more
            clock.advance(timedelta(hours=6))
            assert await run_job(services) == 0
        assert len(smtp.sent_to("ana@example.com")) == 1

        clock.advance(timedelta(hours=30))  # under 24 h left
        assert await run_job(services) == 1
        assert await run_job(services) == 0
        second = smtp.sent_to("ana@example.com")[1]
        assert subject(second) == "Su peer movil vence en menos de 24 horas - VPN Prueba"
        assert len(smtp.sent_to("ana@example.com")) == 2


async def test_no_mail_to_an_unverified_address_or_without_email(services: Services, smtp: FakeSMTP) -> None:
    with manual_clock() as clock:
        await expiring_peer(services, clock, "ana", "ana@example.com", days=10)
        await expiring_peer(services, clock, "bea", None, days=10)
        async with services.sessionmaker.begin() as db:
            await db.execute(update(User).where(User.username == "ana").values(email_verified=False))
        clock.advance(timedelta(days=7, hours=1))
        assert await run_job(services) == 0
        clock.advance(timedelta(days=2))
        assert await run_job(services) == 0
    assert smtp.inbox.messages == []


async def test_a_peer_first_seen_inside_24_hours_gets_only_the_24_hour_mail(services: Services, smtp: FakeSMTP) -> None:
    with manual_clock() as clock:
        await expiring_peer(services, clock, "ana", "ana@example.com", days=10)
        clock.advance(timedelta(days=9, hours=1))  # the job did not run for days
        assert await run_job(services) == 1
        assert await run_job(services) == 0
    assert [subject(m) for m in smtp.sent_to("ana@example.com")] == [
        "Su peer movil vence en menos de 24 horas - VPN Prueba"
    ]


async def test_a_renewed_peer_is_reminded_again_before_its_new_date(services: Services, smtp: FakeSMTP) -> None:
    with manual_clock() as clock:
        peer = await expiring_peer(services, clock, "ana", "ana@example.com", days=10)
        clock.advance(timedelta(days=7, hours=1))
        assert await run_job(services) == 1
        async with services.sessionmaker.begin() as db:  # renewed: a 30-day plan
            stored = await db.get(Peer, peer.id)
            assert stored is not None
            await services.peers.add_plan(db, stored, None, "Mensual", Decimal("5.00"), 30 * 24)
        assert await run_job(services) == 0
        clock.advance(timedelta(days=30))
        assert await run_job(services) == 1
    assert len(smtp.sent_to("ana@example.com")) == 2


async def test_two_processes_running_the_job_at_once_send_each_reminder_once(
    services: Services, smtp: FakeSMTP
) -> None:
    """The lease normally keeps the job on one process; should two runs overlap (a lease taken over from a slow
    holder), the claim row still lets one mail out per peer."""
    with manual_clock() as clock:
        for n in range(6):
            await expiring_peer(services, clock, f"cliente{n}", f"c{n}@example.com", days=10)
        clock.advance(timedelta(days=7, hours=1))

        async def one_run() -> int:
            async with transaction(services.sessionmaker) as db:
                return await services.reminders.send_due(db)

        assert sum(await asyncio.gather(one_run(), one_run(), one_run())) == 6
    assert sorted(m["To"] for m in smtp.inbox.messages) == sorted(f"c{n}@example.com" for n in range(6))


async def test_a_mail_server_that_refuses_leaves_the_reminder_for_the_next_run(
    services: Services, smtp: FakeSMTP
) -> None:
    with manual_clock() as clock:
        await expiring_peer(services, clock, "ana", "ana@example.com", days=10)
        clock.advance(timedelta(days=7, hours=1))
        smtp.stop()  # the mail server is down for real: connections are refused
        try:
            assert await run_job(services) == 0
        finally:
            smtp.restart()
        assert smtp.sent_to("ana@example.com") == []
        assert await run_job(services) == 1
    assert len(smtp.sent_to("ana@example.com")) == 1


async def test_a_short_plan_bought_inside_the_window_is_not_reminded_at_once(
    services: Services, smtp: FakeSMTP
) -> None:
    with manual_clock() as clock:
        await expiring_peer(services, clock, "ana", "ana@example.com", days=2)  # created now, ends in 48 h
        assert await run_job(services) == 0
        clock.advance(timedelta(days=1, hours=1))
        assert await run_job(services) == 1  # the 24 h one still comes
    assert [subject(m) for m in smtp.sent_to("ana@example.com")] == [
        "Su peer movil vence en menos de 24 horas - VPN Prueba"
    ]
