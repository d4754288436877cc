"""Serves the built web client (webui/dist) with SPA fallback: unknown non-API paths get index.html."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import MediaType, Request, Response, Router, get
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.response import File

from controlplane.dependencies import services_of

NOT_BUILT = """<!doctype html><html lang="es"><meta charset="utf-8"><title>VPN</title>
<body><p>El cliente web no está compilado. Ejecute <code>make web</code> (o <code>make run</code>).</p></body></html>"""


def _serve(request: Request[Any, Any, Any], path: str) -> Response[Any]:
    if path.startswith(("api/", "ws")) or path == "api":
        raise NotFoundException()
    dist: Path = services_of(request).settings.webui_dist.resolve()
    if path:
        candidate = (dist / path).resolve()
        if candidate.is_relative_to(dist) and candidate.is_file():
            # Hashed asset names never change content, so browsers may keep them for a year.
            immutable = candidate.parent.name == "assets"
            return File(
                candidate,
                filename=candidate.name,
                content_disposition_type="inline",
                headers={"Cache-Control": "public, max-age=31536000, immutable" if immutable else "no-cache"},
            )
        if candidate.suffix and candidate.parent.name == "assets":
            raise NotFoundException()
    index = dist / "index.html"
    if index.is_file():
        return File(
            index,
            filename="index.html",
            content_disposition_type="inline",
            headers={"Cache-Control": "no-cache"},
        )
    return Response(NOT_BUILT, media_type=MediaType.HTML, status_code=200)


@get("/", include_in_schema=False, opt={"maintenance_exempt": True})
async def spa_root(request: Request[Any, Any, Any]) -> Response[Any]:
    return _serve(request, "")


@get("/{path:path}", include_in_schema=False, opt={"maintenance_exempt": True})
async def spa_path(request: Request[Any, Any, Any], path: FromPath[str]) -> Response[Any]:
    return _serve(request, path.lstrip("/"))


webui_router = Router(path="/", route_handlers=[spa_root, spa_path])
