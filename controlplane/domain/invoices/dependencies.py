"""The invoices' part for their controllers (domain/invoices/controllers.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, after_customer, services_of
from controlplane.domain.invoices.service import InvoiceService


async def provide_invoices(request: Request[Any, Any, Any]) -> InvoiceService:
    return services_of(request).invoices


Invoices = Part[InvoiceService]

INVOICES = {"invoices": Provide(provide_invoices)}
CUSTOMER_INVOICES = {"invoices": after_customer(provide_invoices)}
