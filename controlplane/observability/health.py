"""`/healthz` (the process answers) and `/readyz` (it can serve: database, Redis when set, schema at head)."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING, Any

from litestar import Request, Response, route
from sqlalchemy import text

from controlplane.head_requests import GET_AND_HEAD, head_without_body

if TYPE_CHECKING:
    from controlplane.services import Services

log = logging.getLogger(__name__)
CHECK_TIMEOUT = 2.0  # a load balancer polls this; a hung database must answer "not ready", not hang it too


@functools.cache
def code_head() -> str:
    """The migration this code expects (one head: see docs/deployment.md on upgrades)."""
    # Imported here, on the first readiness check: Alembic costs about a second of start-up otherwise, and a
    # restart's time to serve agents again is a performance target.
    from alembic.script import ScriptDirectory

    from controlplane.migrate import alembic_config

    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    return head or ""


async def _database(services: Services) -> str:
    async with services.engine.connect() as conn:
        await conn.execute(text("SELECT 1"))
        row = (await conn.execute(text("SELECT version_num FROM alembic_version"))).first()
    at = row[0] if row else ""
    expected = await asyncio.to_thread(code_head)  # the first call reads the migration files
    if at != expected:
        return f"schema at {at or 'nothing'}, code expects {expected}: run `python -m controlplane migrate`"
    return "ok"


async def _redis(services: Services) -> str:
    assert services.redis is not None
    await services.redis.ping()
    return "ok"


async def _check(name: str, probe: Any) -> tuple[str, str]:
    try:
        return name, await asyncio.wait_for(probe, CHECK_TIMEOUT)
    except TimeoutError:
        return name, f"no answer within {CHECK_TIMEOUT:.0f} s"
    except Exception as exc:
        log.warning("readiness check %s failed: %s", name, exc)
        return name, f"unreachable: {type(exc).__name__}"


@route(
    "/healthz", http_method=GET_AND_HEAD, include_in_schema=False, opt={"maintenance_exempt": True},
    middleware=[head_without_body],
)  # fmt: skip
async def healthz() -> Response[dict[str, str]]:
    """Liveness: the event loop runs and answers. Restart the process only when this fails."""
    return Response({"status": "ok"})


@route(
    "/readyz", http_method=GET_AND_HEAD, include_in_schema=False, opt={"maintenance_exempt": True},
    middleware=[head_without_body],
)  # fmt: skip
async def readyz(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    """Readiness: 200 when every dependency answers, else 503 and which one did not (take out of the pool)."""
    services: Services = request.app.state.services
    probes = [_check("database", _database(services))]
    if services.redis is not None:
        probes.append(_check("redis", _redis(services)))
    checks = dict(await asyncio.gather(*probes))
    if all(v == "ok" for v in checks.values()):
        return Response({"status": "ok", "checks": checks})
    return Response({"message": "El servicio no está listo.", "code": "not_ready", "checks": checks}, status_code=503)
