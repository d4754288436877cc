"""The payment links' part for their controllers and the gateway return (domain/invoices/controllers.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, after_customer, services_of
from controlplane.domain.paylinks.service import PaymentLinkService


async def provide_payment_links(request: Request[Any, Any, Any]) -> PaymentLinkService:
    return services_of(request).payment_links


PaymentLinks = Part[PaymentLinkService]

PAYMENT_LINKS = {"payment_links": Provide(provide_payment_links)}
CUSTOMER_PAYMENT_LINKS = {"payment_links": after_customer(provide_payment_links)}
