"""Customer usage endpoints: a peer's history for a chart, and this month's totals for the peer table."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import FromPath, QueryParameter

from controlplane.db import utcnow
from controlplane.dependencies import CUSTOMER, DB, Customer, customer_area
from controlplane.domain.peers.dependencies import CUSTOMER_PEERS, Peers
from controlplane.domain.usage import schemas, service, store

RangeParam = Annotated[store.Range, QueryParameter(description="24h (por hora), 30d (por día) o 1y (por mes)")]


class UsageController(Controller):
    path = "/api/client/accounts"
    tags = ["usage"]
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_PEERS}

    @get("/peers/{peer_id:str}/usage", operation_id="peerUsage")
    async def peer_usage(
        self, peers: Peers, db: DB, customer: Customer, peer_id: FromPath[str], range: RangeParam = "30d"
    ) -> schemas.UsageSeries:
        peer = await peers.owned(db, customer.user_id, peer_id)  # 404 for anyone else's peer
        return await service.peer_usage(db, peer.id, range, utcnow())

    @get("/usage", operation_id="monthUsage")
    async def month_usage(self, db: DB, customer: Customer) -> list[schemas.PeerMonthUsage]:
        return await service.month_usage_of(db, customer.user_id, utcnow())
