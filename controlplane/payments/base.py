"""The one interface both payment gateways implement (create a payment, check a notification, read a payment back)."""

from __future__ import annotations

import enum
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx

log = logging.getLogger(__name__)

CENT = Decimal("0.01")


class PaymentStatus(enum.StrEnum):
    PENDING = "pending"
    PAID = "paid"
    CANCELED = "canceled"
    FAILED = "failed"


@dataclass(frozen=True)
class PaymentRequest:
    remote_id: str  # our invoice's public id, sent to the gateway and echoed back in notifications
    amount: Decimal
    description: str
    notify_url: str
    success_url: str
    cancel_url: str
    item: str = ""  # what is sold, as the gateway lists it (the plan's name); the description when empty


@dataclass(frozen=True)
class CreatedPayment:
    payment_url: str
    reference: str | None  # the gateway's id for the payment (QvaPay transaction uuid, Remesita reference)
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PaymentRecord:
    """A payment as the gateway itself reports it when asked: the only thing ever credited."""

    reference: str
    remote_id: str | None
    amount: Decimal | None
    status: PaymentStatus
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Notification:
    """What a notification claims; never trusted beyond naming which payment to read back.

    `hint`: the notification proved nothing about its sender (QvaPay's unsigned webhook): it may name the invoice
    by its remote id or only the payment by the gateway's reference (then `remote_id` is empty)."""

    remote_id: str
    reference: str | None
    hint: bool = False


class GatewayUnavailable(Exception):
    """Down, slow or answering 5xx: try again later (the reconciliation job does)."""


class GatewayError(Exception):
    """The gateway refused our request or answered something we cannot read. `code`: the gateway's own error code
    when its refusal carried one (QvaPay's `DUPLICATE_REQUEST`)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class RejectedNotification(Exception):
    """Bad signature, wrong secret, stale timestamp or unreadable body. The text is for logs (no secrets)."""


def money(value: Any) -> Decimal | None:
    """A gateway amount as Decimal with cents; None when absent or unreadable (never via float)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value)).quantize(CENT)
    except (InvalidOperation, ValueError):
        return None


def decode_json(content: bytes) -> Any:
    """JSON with decimals kept exact (amounts must never pass through float)."""
    return json.loads(content, parse_float=Decimal)


def plain(value: Any) -> Any:
    """Decimals back to strings so a gateway's record can be stored as JSON."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class Gateway(ABC):
    name: str
    label: str  # how customers see it

    def __init__(self, http: httpx.AsyncClient, timeout: float, public_url: str) -> None:
        self._http = http
        self._timeout = timeout
        self._public_url = public_url.rstrip("/")

    @property
    @abstractmethod
    def configured(self) -> bool:
        """Credentials present: without them no payment can be created."""

    @abstractmethod
    def notify_url(self, remote_id: str) -> str: ...

    @abstractmethod
    async def create_payment(self, request: PaymentRequest) -> CreatedPayment: ...

    @abstractmethod
    def verify_notification(self, body: bytes, headers: Mapping[str, str], path: Mapping[str, str]) -> Notification:
        """Check that the notification comes from the gateway; raise RejectedNotification otherwise."""

    @abstractmethod
    async def lookup(self, reference: str, remote_id: str) -> PaymentRecord:
        """Read the payment back from the gateway."""

    async def _request(self, method: str, url: str, **kwargs: Any) -> Any:
        """One call to the gateway: transport trouble and 5xx are `GatewayUnavailable`, refusals `GatewayError`."""
        # The text becomes the invoice's `problem`, read by staff in the manager: Spanish, the gateway by its brand.
        try:
            answer = await self._http.request(method, url, timeout=self._timeout, **kwargs)
        except httpx.TimeoutException as exc:
            raise GatewayUnavailable(f"{self.label} no respondió en {self._timeout:g} s.") from exc
        except httpx.TransportError as exc:
            raise GatewayUnavailable(f"No se pudo conectar con {self.label} ({type(exc).__name__}).") from exc
        if answer.status_code >= 500:
            raise GatewayUnavailable(f"{self.label} no está disponible (HTTP {answer.status_code}).")
        if answer.status_code >= 400:
            where = url.rsplit("/", 1)[-1]
            raise GatewayError(
                f"{self.label} rechazó la solicitud (HTTP {answer.status_code} en {where}).", code=_error_code(answer)
            )
        try:
            return decode_json(answer.content)
        except ValueError as exc:
            raise GatewayError(f"{self.label} respondió algo que no es JSON.") from exc


def _error_code(answer: httpx.Response) -> str | None:
    """The `code` of a gateway's JSON refusal (`{"error": ..., "code": "DUPLICATE_REQUEST"}`), if it has one."""
    try:
        data = decode_json(answer.content)
    except ValueError:
        return None
    code = data.get("code") if isinstance(data, dict) else None
    return code[:64] if isinstance(code, str) else None
