"""Prometheus metrics of one control-plane process, and the `/metrics` endpoint that serves them.

prometheus_client is the reference Python client (maintained by the Prometheus project): it gives the text
exposition format, histograms with sane buckets and a registry per process. Each process keeps its own registry;
Prometheus scrapes every process and `sum()`s the per-process series (requests, sockets, nodes connected).
Figures read from the database at scrape time (operations pending or failed) are deployment-wide: every process
reports the same value, so aggregate them with `max()`.
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from typing import Any, cast

from litestar import Litestar, Request, Response, get
from litestar.exceptions import HTTPException
from litestar.types import ASGIApp, HTTPScope, Message, Receive, Scope, Send
from litestar.utils import normalize_path
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.db import transaction
from controlplane.domain.invoices.models import Invoice, InvoiceStatus
from controlplane.errors import NotFound, Unauthorized
from controlplane.nodes.models import NodeOperation
from controlplane.nodes.registry import AgentRegistry
from controlplane.observability.logs import UNMATCHED, log_request, request_id_scope
from controlplane.realtime.hub import PushHub

# Request latency from ~1 ms to 10 s: API calls sit in the low buckets, slow database moments in the high ones.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# created: payment page opened; paid / fulfilled / canceled / failed: what the invoice became; rejected: a
# notification that failed verification (forged, or a broken gateway). Expiry shows in vpn_invoices.
PAYMENT_OUTCOMES = ("created", "paid", "fulfilled", "canceled", "failed", "rejected")


class ControlPlaneMetrics:
    """Every series this process exports; services call the few `record_*` methods, the rest is read at scrape."""

    def __init__(
        self, hub: PushHub, agents: AgentRegistry, read_sessionmaker: async_sessionmaker[AsyncSession]
    ) -> None:
        # What the scrape-time figures are read from (`refresh`): these three, not the whole container.
        self._hub = hub
        self._agents = agents
        self._read_sessionmaker = read_sessionmaker
        self.registry = CollectorRegistry(auto_describe=True)
        self.http_latency = Histogram(
            "vpn_http_request_duration_seconds",
            "HTTP requests by route template, method and status code.",
            ("method", "route", "status"),
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.open_sockets = Gauge(
            "vpn_websocket_connections", "Browser WebSockets open on this process.", registry=self.registry
        )
        self.nodes_connected = Gauge(
            "vpn_nodes_connected", "Node agents whose gRPC stream is held by this process.", registry=self.registry
        )
        self.operations = Gauge(
            "vpn_node_operations",
            "Node operations in the database by status (deployment-wide: same value on every process).",
            ("status",),
            registry=self.registry,
        )
        self.operation_outcomes = Counter(
            "vpn_node_operation_outcomes",
            "Node operations ended by this process, by outcome (ok, failed).",
            ("outcome",),
            registry=self.registry,
        )
        self.invoices = Gauge(
            "vpn_invoices",
            "Invoices in the database by status (deployment-wide: same value on every process).",
            ("status",),
            registry=self.registry,
        )
        self.payments = Counter(
            "vpn_payments",
            "Payments seen by this process, by gateway and outcome.",
            ("gateway", "outcome"),
            registry=self.registry,
        )

    def record_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.http_latency.labels(method, route, str(status)).observe(seconds)

    def record_operation_outcome(self, ok: bool) -> None:
        self.operation_outcomes.labels("ok" if ok else "failed").inc()

    def record_payment(self, gateway: str, outcome: str) -> None:
        """Call once per payment event: `outcome` is one of PAYMENT_OUTCOMES (an invoice state, or `rejected`
        for a notification that failed verification)."""
        if outcome not in PAYMENT_OUTCOMES:
            raise ValueError(f"unknown payment outcome {outcome!r}")
        self.payments.labels(gateway, outcome).inc()

    async def refresh(self) -> None:
        """Read the figures that live elsewhere (hub, registry, database) just before a scrape."""
        self.open_sockets.set(self._hub.open_sockets)
        self.nodes_connected.set(len(self._agents))
        async with transaction(self._read_sessionmaker) as db:
            rows = (await db.execute(select(NodeOperation.status, func.count()).group_by(NodeOperation.status))).all()
            invoice_rows = (await db.execute(select(Invoice.status, func.count()).group_by(Invoice.status))).all()
        counts = {str(status): count for status, count in rows}
        for status in ("pending", "ok", "failed"):
            self.operations.labels(status).set(counts.get(status, 0))
        invoice_counts = {str(status): count for status, count in invoice_rows}
        for invoice_status in InvoiceStatus:
            self.invoices.labels(invoice_status.value).set(invoice_counts.get(invoice_status.value, 0))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


# Headers a reverse proxy adds. nginx's example sends X-Forwarded-For, X-Forwarded-Proto and X-Request-ID.
PROXY_HEADERS = ("x-forwarded-for", "forwarded", "x-forwarded-proto", "x-forwarded-host", "x-real-ip", "via")
_LOOPBACK_NAMES = ("localhost", "localhost.")


def _names_loopback(host_header: str) -> bool:
    """Host names this process on loopback: `127.0.0.1:8000`, `[::1]:8000`, `localhost:8000` (a scraper's target)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _from_loopback_unproxied(request: Request[Any, Any, Any]) -> bool:
    """A scraper on this host talking to the process directly, not a request a reverse proxy passed on.

    A proxy on this host connects from loopback too, so its requests are told apart by what it says: any forwarding
    header, or a Host naming something other than loopback. The second holds even for a proxy that forwards no
    header at all (the nginx example did that once, in its locations that set headers of their own): nginx sends the
    site's name (`proxy_set_header Host $host`) or, by default, the upstream's name (`vpn_http`)."""
    if any(name in request.headers for name in PROXY_HEADERS):
        return False
    if not _names_loopback(request.headers.get("host", "")):
        return False
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@get("/metrics", include_in_schema=False, opt={"maintenance_exempt": True})
async def metrics_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    """With VPN_METRICS_TOKEN set: `Authorization: Bearer <token>` from anywhere. Without it: a scraper on loopback
    talking to the process directly, never a request that came through a proxy (docs/deployment.md, "Metrics")."""
    # The composition root (controlplane/services.py) is read off the app, not imported: it imports this module.
    services = request.app.state.services
    metrics: ControlPlaneMetrics = services.metrics
    token: str = services.settings.metrics_token
    if token:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), token.encode()):
            raise Unauthorized("Token de métricas inválido.", code="bad_metrics_token")
    elif not _from_loopback_unproxied(request):
        raise NotFound("No encontrado.")
    await metrics.refresh()
    return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)


# The route of a 405 whose template could not be found: its path is never logged, since it may hold a secret.
REFUSED_METHOD = "<method not allowed>"


def _refused_route(scope: Scope, allowed: str) -> str:
    """A 405's route template. The router matched the path but not the method, so it set no template; routing again
    with a method the answer's Allow header names finds it. The path itself may be a secret link (POST on
    /mirror/{token}), so it is never what is logged."""
    for method in (m.strip() for m in allowed.split(",")):
        if not method:
            continue
        try:
            router = Litestar.from_scope(scope).asgi_router
            template: str = router.handle_routing(path=normalize_path(scope["path"]), method=method)[-1]
        except HTTPException:  # that method is refused too (or the path no longer matches): try the next one
            continue
        return template
    return REFUSED_METHOD


def http_observer(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: request id for the logs and the answer, latency by route template, one access log line."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            with request_id_scope(scope):
                await app(scope, receive, send)
            return
        method = cast("HTTPScope", scope)["method"]
        status = 500
        allowed = ""
        started = time.perf_counter()
        with request_id_scope(scope) as request_id:

            async def send_with_id(message: Message) -> None:
                nonlocal status, allowed
                if message["type"] == "http.response.start":
                    status = message["status"]
                    headers = message.get("headers", [])
                    allowed = next((bytes(v).decode("latin-1") for k, v in headers if bytes(k).lower() == b"allow"), "")
                    message["headers"] = [*headers, (b"x-request-id", request_id.encode())]
                await send(message)

            try:
                await app(scope, receive, send_with_id)
            finally:
                seconds = time.perf_counter() - started
                route = scope.get("path_template") or (_refused_route(scope, allowed) if status == 405 else UNMATCHED)
                services = Litestar.from_scope(scope).state.get("services")
                if services is not None:
                    services.metrics.record_request(method, route, status, seconds)
                log_request(method, route, scope["path"], status, seconds)

    return middleware
