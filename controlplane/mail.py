"""Outgoing email over SMTP (VPN_SMTP_URL), or into a local outbox folder when no server is configured."""

from __future__ import annotations

import logging
import ssl
import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlsplit

import aiosmtplib
import anyio

log = logging.getLogger(__name__)


class Mailer:
    """`smtp://user:pass@host:587` (STARTTLS when offered), `smtps://...:465`, or `file:///path/to/outbox`."""

    def __init__(self, url: str, sender: str, outbox: Path) -> None:
        self._url = urlsplit(url) if url else urlsplit(f"file://{outbox.resolve()}")
        self._sender = sender

    @property
    def enabled(self) -> bool:
        return self._url.scheme in {"smtp", "smtps", "file"}

    async def send(self, to: str, subject: str, body: str) -> None:
        """Send, or log why not: for mails nothing retries (a lost verification mail is asked for again)."""
        try:
            await self.deliver(to, subject, body)
        except (OSError, aiosmtplib.SMTPException) as exc:
            # The address and subject are fine to log; the body holds single-use links and is not.
            log.warning("could not send mail %r to %s: %s", subject, to, exc)

    async def deliver(self, to: str, subject: str, body: str) -> None:
        """Send, raising OSError or SMTPException when the server does not take it (callers that retry)."""
        msg = EmailMessage()
        msg["From"] = self._sender
        msg["To"] = to
        msg["Subject"] = subject
        msg.set_content(body)
        if self._url.scheme == "file":
            await self._write_to_outbox(msg)
        else:
            await self._send_smtp(msg)

    async def _send_smtp(self, msg: EmailMessage) -> None:
        url = self._url
        implicit_tls = url.scheme == "smtps"
        await aiosmtplib.send(
            msg,
            hostname=url.hostname or "localhost",
            port=url.port or (465 if implicit_tls else 25),
            username=unquote(url.username) if url.username else None,
            password=unquote(url.password) if url.password else None,
            use_tls=implicit_tls,
            start_tls=None if not implicit_tls else False,
            tls_context=ssl.create_default_context(),
            timeout=15,
        )

    async def _write_to_outbox(self, msg: EmailMessage) -> None:
        outbox = anyio.Path(self._url.path)
        await outbox.mkdir(parents=True, exist_ok=True)
        name = f"{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{uuid.uuid4().hex[:8]}.eml"
        await (outbox / name).write_bytes(bytes(msg))
