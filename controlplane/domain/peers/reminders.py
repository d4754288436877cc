"""Expiry reminders: an email 72 hours and another 24 hours before a peer's plan runs out (docs/deployment.md,
"Expiry reminder emails").

Each reminder goes out once for the whole deployment, however many processes run the job: the row of
`expiry_reminders` is inserted (the claim) before the mail is sent, and the job's transaction commits the claims of
the mails it sent. A second process inserting the same row waits on the primary key until the first commits, then
finds it taken. A mail server that refuses a message rolls back that claim alone (a savepoint), so the next run
tries it again. Only a process that dies between sending and committing can make a reminder go out twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import aiosmtplib
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.accounts.models import User
from controlplane.domain.peers.models import ExpiryReminder, Peer, PlanHistory
from controlplane.domain.switches.service import SwitchService
from controlplane.mail import Mailer
from controlplane.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Window:
    """Peers expiring in (`after`, `hours`] hours from now get this reminder."""

    kind: str
    hours: int
    after: int
    subject: str  # "{peer}" and "{product}" are filled in


# The windows do not overlap: a peer first seen with less than 24 h left (the job was down for two days) gets only
# the 24 h reminder, not a late "3 días" one.
WINDOWS = (
    Window("72h", 72, 24, "Su peer {peer} vence en 3 días - {product}"),
    Window("24h", 24, 0, "Su peer {peer} vence en menos de 24 horas - {product}"),
)

MONTHS = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
]


def spanish_date(moment: datetime) -> str:
    """25 de noviembre de 2026 a las 14:05 UTC (no locale needed on the server)."""
    return f"{moment.day} de {MONTHS[moment.month - 1]} de {moment.year} a las {moment:%H:%M} UTC"


@dataclass(frozen=True)
class Due:
    peer_id: str
    peer_name: str
    expiration_date: datetime
    username: str
    email: str


class ExpiryReminders:
    def __init__(self, mailer: Mailer, switches: SwitchService, settings: Settings) -> None:
        self._mailer = mailer
        self._switches = switches
        self._settings = settings

    async def send_due(self, db: AsyncSession) -> int:
        """The reminder job: sends every reminder now due; returns how many this run sent."""
        if not (await self._switches.current()).allow_email:
            return 0  # the operator turned email off: no address is used for anything
        sent = 0
        for window in WINDOWS:
            for due in await self._due(db, window):
                if await self._send_once(db, due, window):
                    sent += 1
        return sent

    async def _due(self, db: AsyncSession, window: Window) -> list[Due]:
        now = utcnow()
        start = now + timedelta(hours=window.after)
        last_extended = select(func.max(PlanHistory.created)).where(PlanHistory.peer_id == Peer.id).scalar_subquery()
        taken = select(ExpiryReminder.peer_id).where(
            ExpiryReminder.peer_id == Peer.id,
            ExpiryReminder.kind == window.kind,
            ExpiryReminder.expiration_date == Peer.expiration_date,
        )
        query = (
            select(Peer.id, Peer.name, Peer.expiration_date, Peer.created, last_extended.label("extended"))
            .add_columns(User.username, User.email)
            .join(User, User.id == Peer.user_id)
            .where(
                Peer.active.is_(True),
                Peer.expiration_date.is_not(None),
                Peer.expiration_date > start,
                Peer.expiration_date <= now + timedelta(hours=window.hours),
                User.email.is_not(None),
                User.email_verified.is_(True),
                User.blocked.is_(False),
                ~taken.exists(),
            )
            .order_by(Peer.expiration_date)
        )
        due = []
        for row in (await db.execute(query)).all():
            # A plan bought inside the window (a one-day plan, a peer created yesterday) needs no reminder of the
            # date the customer just chose. Compared here, not in SQL: date arithmetic differs between backends.
            chosen = max(row.created, row.extended or row.created)
            if chosen <= row.expiration_date - timedelta(hours=window.hours):
                due.append(Due(row.id, row.name, row.expiration_date, row.username, row.email))
        return due

    async def _send_once(self, db: AsyncSession, due: Due, window: Window) -> bool:
        try:
            async with db.begin_nested():
                db.add(ExpiryReminder(peer_id=due.peer_id, kind=window.kind, expiration_date=due.expiration_date))
                await db.flush()  # the claim: waits here while another process holds the same row
                await self._mailer.deliver(due.email, *self._message(due, window))
        except IntegrityError:
            return False  # another process sent it
        except (OSError, aiosmtplib.SMTPException) as exc:
            log.warning("expiry reminder %s for peer %s not sent, retried later: %s", window.kind, due.peer_id, exc)
            return False
        return True

    def _message(self, due: Due, window: Window) -> tuple[str, str]:
        product = self._settings.product_name
        renew = f"{self._settings.client_url}/dashboard/plans?renew={due.peer_id}"
        left = "menos de 24 horas" if window.kind == "24h" else "3 días"
        body = (
            f"Hola {due.username}:\n\n"
            f"El plan de su peer «{due.peer_name}» en {product} vence en {left}, "
            f"el {spanish_date(due.expiration_date)}.\n"
            "Cuando venza, el peer quedará deshabilitado y dejará de conectar.\n\n"
            f"Renueve su plan aquí para seguir conectado sin interrupciones:\n{renew}\n\n"
            "Si ya lo renovó, ignore este mensaje.\n\n"
            f"{product}\n"
        )
        return window.subject.format(peer=due.peer_name, product=product), body
