"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives, for tests of outgoing mail."""

from __future__ import annotations

import email
import re
import socket
import time
from email.message import Message

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))  # type: ignore[attr-defined]
        return "250 OK"


class FakeSMTP:
    def __init__(self) -> None:
        self.inbox = _Inbox()
        self.port = free_port()
        self._controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> FakeSMTP:
        self._controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._controller.stop()

    def stop(self) -> None:
        """The mail server goes down: connections to its port are refused until `restart`."""
        self._controller.stop()

    def restart(self) -> None:
        self._controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def clear(self) -> None:
        self.inbox.messages.clear()

    def wait_for(self, to: str, timeout: float = 30.0) -> Message:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for msg in self.inbox.messages:
                if msg["To"] == to:
                    return msg
            time.sleep(0.02)
        raise AssertionError(f"no mail to {to} within {timeout}s")

    def sent_to(self, to: str) -> list[Message]:
        return [m for m in self.inbox.messages if m["To"] == to]


def link_in(message: Message, path: str) -> str:
    body = message.get_payload(decode=True).decode()  # type: ignore[union-attr]
    match = re.search(rf"https?://\S+{re.escape(path)}\?token=(\S+)", body)
    assert match, f"no {path} link in mail"
    return match.group(1)
