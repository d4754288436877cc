"""What an operator's monitoring sees: liveness, readiness, Prometheus metrics and request ids."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from litestar.testing import AsyncTestClient

from controlplane.app import create_app
from controlplane.migrate import alembic_config, upgrade
from controlplane.observability.logs import RequestIdFilter
from controlplane.services import Services, build_services
from controlplane.settings import Settings
from tests.api.conftest import make_settings
from tests.api.factories import bearer, login, make_peer, make_server, make_user

TOKEN = "metricas-de-prueba-0123456789"


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"metrics_token": TOKEN}


def scrape_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def sample(exposition: str, name: str, **labels: str) -> float:
    """The value of one series in the text format, e.g. sample(text, "vpn_node_operations", status="pending")."""
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in exposition.splitlines():
        series, _, value = line.rpartition(" ")
        if series == (f"{name}{{{wanted}}}" if labels else name):
            return float(value)
    raise AssertionError(f"{name}{{{wanted}}} not exported")


async def test_liveness_answers_ok(client: AsyncTestClient[Any]) -> None:
    answer = await client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}


async def test_readiness_reports_the_database_at_the_expected_migration(client: AsyncTestClient[Any]) -> None:
    answer = await client.get("/readyz")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"status": "ok", "checks": {"database": "ok"}}


async def test_readiness_fails_while_the_schema_is_behind_the_code(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
    script = ScriptDirectory.from_config(alembic_config(url))
    head = script.get_current_head()
    previous = script.get_revision(head).down_revision  # type: ignore[union-attr]
    assert isinstance(previous, str), "needs at least two migrations"
    await asyncio.to_thread(upgrade, url, previous)
    services = build_services(make_settings(url, tmp_path))
    try:
        async with AsyncTestClient(app=create_app(services=services)) as client:
            answer = await client.get("/readyz")
    finally:
        await services.close()
    assert answer.status_code == 503
    body = answer.json()
    assert body["code"] == "not_ready"
    assert body["message"] == "El servicio no está listo."
    assert f"schema at {previous}, code expects {head}" in body["checks"]["database"]


async def test_readiness_fails_when_the_configured_redis_does_not_answer(settings: Settings, tmp_path: Path) -> None:
    import msgspec

    services = build_services(msgspec.structs.replace(settings, redis_url="redis://127.0.0.1:9/0"))
    try:
        async with AsyncTestClient(app=create_app(services=services)) as client:
            answer = await client.get("/readyz")
    finally:
        await services.close()
    assert answer.status_code == 503
    checks = answer.json()["checks"]
    assert checks["database"] == "ok"
    assert checks["redis"].startswith("unreachable")


async def test_metrics_refuse_a_scraper_without_the_token(client: AsyncTestClient[Any]) -> None:
    assert (await client.get("/metrics")).status_code == 401
    wrong = await client.get("/metrics", headers={"Authorization": "Bearer otro"})
    assert wrong.status_code == 401
    assert wrong.json()["code"] == "bad_metrics_token"


async def test_metrics_without_a_token_setting_are_hidden_from_remote_clients(
    services: Services, tmp_path: Path
) -> None:
    import msgspec

    open_services = build_services(msgspec.structs.replace(services.settings, metrics_token=""))
    try:
        async with AsyncTestClient(app=create_app(services=open_services)) as client:
            answer = await client.get("/metrics")  # the test client is not a loopback address
    finally:
        await open_services.close()
    assert answer.status_code == 404


async def test_latency_is_recorded_by_route_template_not_by_raw_path(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    user = await make_user(services)
    peer = await make_peer(services, user, server=await make_server(services))
    headers = bearer(await login(client))
    assert (await client.get(f"/api/client/accounts/peers/{peer.id}", headers=headers)).status_code == 200
    assert (await client.get("/api/client/accounts/peers/no-existe", headers=headers)).status_code == 404
    text = (await client.get("/metrics", headers=scrape_headers())).text
    route = "/api/client/accounts/peers/{peer_id}"
    assert sample(text, "vpn_http_request_duration_seconds_count", method="GET", route=route, status="200") == 1
    assert sample(text, "vpn_http_request_duration_seconds_count", method="GET", route=route, status="404") == 1
    assert peer.id not in text


async def test_the_access_log_never_carries_a_mirror_token(
    services: Services, client: AsyncTestClient[Any], caplog: pytest.LogCaptureFixture
) -> None:
    user = await make_user(services)
    await make_peer(services, user, server=await make_server(services))
    headers = bearer(await login(client))
    [item] = (await client.get("/api/client/accounts/peers", headers=headers)).json()
    token = item["mirror_link"].rsplit("/", 1)[1]
    with caplog.at_level(logging.INFO, logger="controlplane.access"):
        assert (await client.get(f"/mirror/{token}")).status_code == 200
        assert (await client.get("/password-recovery/un-token-secreto-de-reset")).status_code == 200
    lines = [record.getMessage() for record in caplog.records if record.name == "controlplane.access"]
    assert any(line.startswith("GET /mirror/{token} 200") for line in lines), lines
    assert not [line for line in lines if token in line or "un-token-secreto" in line]


async def test_metrics_show_pending_operations_sockets_nodes_and_payments(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    user = await make_user(services)
    await make_peer(services, user, server=await make_server(services))  # queues a "create" for the node
    services.metrics.record_payment("qvapay", "paid")
    services.metrics.record_payment("qvapay", "paid")
    services.metrics.record_payment("remesita", "failed")
    text = (await client.get("/metrics", headers=scrape_headers())).text
    assert sample(text, "vpn_node_operations", status="pending") == 1
    assert sample(text, "vpn_node_operations", status="failed") == 0
    assert sample(text, "vpn_websocket_connections") == 0
    assert sample(text, "vpn_nodes_connected") == 0
    assert sample(text, "vpn_payments_total", gateway="qvapay", outcome="paid") == 2
    assert sample(text, "vpn_payments_total", gateway="remesita", outcome="failed") == 1


async def test_an_operation_that_times_out_counts_as_failed(services: Services, client: AsyncTestClient[Any]) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from controlplane.db import transaction, utcnow
    from controlplane.nodes.models import NodeOperation

    user = await make_user(services)
    await make_peer(services, user, server=await make_server(services))
    async with transaction(services.sessionmaker) as db:
        await db.execute(update(NodeOperation).values(created=utcnow() - timedelta(hours=1)))
    async with transaction(services.sessionmaker) as db:
        assert await services.operations.expire_overdue(db) == 1
    text = (await client.get("/metrics", headers=scrape_headers())).text
    assert sample(text, "vpn_node_operations", status="pending") == 0
    assert sample(text, "vpn_node_operations", status="failed") == 1
    assert sample(text, "vpn_node_operation_outcomes_total", outcome="failed") == 1


def test_an_unknown_payment_outcome_is_a_programming_error(services: Services) -> None:
    with pytest.raises(ValueError, match="unknown payment outcome"):
        services.metrics.record_payment("qvapay", "pagado")


async def test_every_answer_carries_a_request_id_and_keeps_a_sane_one_from_the_proxy(
    client: AsyncTestClient[Any],
) -> None:
    fresh = await client.get("/api/client/status")
    assert len(fresh.headers["x-request-id"]) == 32
    kept = await client.get("/api/client/status", headers={"X-Request-ID": "proxy-id-12345678"})
    assert kept.headers["x-request-id"] == "proxy-id-12345678"
    odd = await client.get("/api/client/status", headers={"X-Request-ID": "no vale\testo"})
    assert odd.headers["x-request-id"] != "no vale\testo"
    assert len(odd.headers["x-request-id"]) == 32


async def test_answers_the_router_gives_carry_the_request_id_and_are_logged(
    client: AsyncTestClient[Any], caplog: pytest.LogCaptureFixture
) -> None:
    """A GET on a POST-only route (405) and a path under /api no route matches (404) are answered by the router,
    before any route's middleware: they too must carry the proxy's request id and leave an access line with it, or
    nginx's log line of a refused request names an id the app never wrote (found by the deployment rehearsal)."""
    caplog.handler.addFilter(RequestIdFilter())  # what the service's log handlers add to every line
    with caplog.at_level(logging.INFO, logger="controlplane.access"):
        wrong_method = await client.get("/api/admin/login", headers={"X-Request-ID": "0123456789abcdef" * 2})
        nowhere = await client.get("/api/no-existe", headers={"X-Request-ID": "fedcba9876543210" * 2})
        fresh = await client.delete("/api/client/register")
        secret_link = await client.post("/mirror/un-token-secreto-de-espejo")
    assert wrong_method.status_code == 405 and wrong_method.headers["x-request-id"] == "0123456789abcdef" * 2
    assert nowhere.status_code == 404 and nowhere.headers["x-request-id"] == "fedcba9876543210" * 2
    assert fresh.status_code == 405 and len(fresh.headers["x-request-id"]) == 32
    logged = {(record.getMessage().split(" ")[2], getattr(record, "request_id", "-"))
              for record in caplog.records if record.name == "controlplane.access"}  # fmt: skip
    assert ("405", "0123456789abcdef" * 2) in logged, logged
    assert ("404", "fedcba9876543210" * 2) in logged, logged
    assert ("405", fresh.headers["x-request-id"]) in logged, logged
    # A refused method is logged under its route's template: the path may be a secret link.
    lines = [record.getMessage() for record in caplog.records if record.name == "controlplane.access"]
    assert secret_link.status_code == 405 and "x-request-id" in secret_link.headers
    assert any(line.startswith("POST /mirror/{token} 405") for line in lines), lines
    assert any(line.startswith("GET /api/admin/login 405") for line in lines), lines
    assert not [line for line in lines if "un-token-secreto" in line], lines
