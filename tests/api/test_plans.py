"""The plan catalogue: readable with or without a session, validity as 'days HH:MM:SS', price in USD."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.domain.plans.service import add_plan, validity_text
from controlplane.services import Services


def test_validity_text_is_days_then_clock() -> None:
    assert validity_text(30 * 24) == "30 00:00:00"
    assert validity_text(36) == "1 12:00:00"
    assert validity_text(0) == "0 00:00:00"


async def test_plans_are_listed_in_order_and_hidden_ones_are_not(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    async with services.sessionmaker.begin() as db:
        await add_plan(db, "Anual", 8760, Decimal("48"), "Ahorra. Un dispositivo", sort_order=2)
        await add_plan(db, "Mensual", 720, Decimal("5"), sort_order=1)
        hidden = await add_plan(db, "Viejo", 24, Decimal("1"), sort_order=0)
        hidden.visible = False
    answer = await client.get("/api/client/plans")
    assert answer.status_code == 200
    assert [(p["name"], p["validity"], p["price"]) for p in answer.json()] == [
        ("Mensual", "30 00:00:00", "5.00"),
        ("Anual", "365 00:00:00", "48.00"),
    ]
    assert answer.json()[1]["description"] == "Ahorra. Un dispositivo"
