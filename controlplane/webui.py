"""Serves the built web client (webui/dist) with SPA fallback: unknown non-API paths get index.html.

The build writes NAME.br and NAME.gz beside each file worth compressing (webui/scripts/precompress.mjs); the one the
browser accepts is sent as is, with `Content-Encoding` and `Vary: Accept-Encoding`. Hashed assets are cached for a
year; index.html is revalidated on every visit, so a new release is picked up at once (docs/webui.md, "Serving").
"""

from __future__ import annotations

import mimetypes
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from litestar import MediaType, Request, Response, Router, route
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.response import File
from litestar.types import Message, Scope

from controlplane.dependencies import services_of
from controlplane.errors import BadRequest
from controlplane.head_requests import GET_AND_HEAD, head_without_body

NOT_BUILT = """<!doctype html><html lang="es"><meta charset="utf-8"><title>VPN</title>
<body><p>El cliente web no está compilado. Ejecute <code>make web</code> (o <code>make run</code>).</p></body></html>"""


# The longest file name (in bytes) Linux file systems hold: a longer path segment names no file of the build and no
# page of the web client, and looking it up would fail with ENAMETOOLONG (a 500 with the path in its stack trace).
NAME_MAX = 255
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # preferred first: brotli is about 15% smaller on this bundle
ASSET_CACHE = "public, max-age=31536000, immutable"
INDEX_CACHE = "no-cache"  # may be stored, but never used without asking the server first


# Headers Litestar's File adds that a year-long immutable asset never uses: the browser never revalidates it (no use
# for `etag` and `last-modified`) and shows it in no download dialog (`content-disposition`). About 140 bytes on each
# of the nine scripts and styles of a first visit on metered data (docs/benchmarks.md, "Session 17: data costs").
UNUSED_ON_IMMUTABLE = frozenset({b"etag", b"last-modified", b"content-disposition"})


def immutable_assets_hook() -> Callable[[Message, Scope], Awaitable[None]]:
    """A Litestar `before_send` hook: drops `UNUSED_ON_IMMUTABLE` from answers cached as immutable."""

    async def drop_unused(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            return
        headers = list(message.get("headers") or [])
        cache = next((bytes(v) for k, v in headers if bytes(k).lower() == b"cache-control"), b"")
        if b"immutable" in cache:
            message["headers"] = [(k, v) for k, v in headers if bytes(k).lower() not in UNUSED_ON_IMMUTABLE]

    return drop_unused


def accepted_encodings(header: str) -> set[str]:
    """Codings of an Accept-Encoding header with a non-zero quality ("br;q=0" refuses brotli)."""
    accepted = set()
    for item in header.lower().split(","):
        name, _, params = item.strip().partition(";")
        quality = params.strip().removeprefix("q=") if params.strip().startswith("q=") else "1"
        try:
            if name.strip() and float(quality) > 0:
                accepted.add(name.strip())
        except ValueError:
            continue
    return accepted


def _file(request: Request[Any, Any, Any], path: Path, cache: str) -> File:
    """`path`, or its precompressed twin when the browser takes that coding."""
    headers = {"Cache-Control": cache}
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    accepted = accepted_encodings(request.headers.get("accept-encoding", ""))
    send = path
    for coding, suffix in ENCODINGS:
        twin = path.with_name(path.name + suffix)
        if twin.is_file():
            headers["Vary"] = "Accept-Encoding"  # caches must key on it once any twin exists
            if coding in accepted and send is path:
                send, headers["Content-Encoding"] = twin, coding
    return File(
        send,
        filename=path.name,
        media_type=media_type,
        content_disposition_type="inline",
        headers=headers,
    )


def _serve(request: Request[Any, Any, Any], path: str) -> Response[Any]:
    if path.startswith(("api/", "ws")) or path == "api":
        raise NotFoundException()
    if "\x00" in path:  # no file name holds one; the file system would refuse it with a 500
        raise BadRequest("La ruta de la solicitud no es válida.", code="invalid_path")
    if any(len(segment.encode()) > NAME_MAX for segment in path.split("/")):
        raise NotFoundException()
    dist: Path = services_of(request).settings.webui_dist.resolve()
    if path:
        try:
            candidate = (dist / path).resolve()
            found = candidate.is_relative_to(dist) and candidate.is_file()
        except OSError:  # a whole path past the file system's limit (ENAMETOOLONG), or one it cannot look up
            raise NotFoundException() from None
        if found:
            # Hashed asset names never change content, so browsers may keep them for a year.
            return _file(request, candidate, ASSET_CACHE if candidate.parent.name == "assets" else INDEX_CACHE)
        if candidate.suffix and candidate.parent.name == "assets":
            raise NotFoundException()
    index = dist / "index.html"
    if index.is_file():
        return _file(request, index, INDEX_CACHE)
    return Response(NOT_BUILT, media_type=MediaType.HTML, status_code=200)


@route("/", http_method=GET_AND_HEAD, include_in_schema=False, opt={"maintenance_exempt": True})
async def spa_root(request: Request[Any, Any, Any]) -> Response[Any]:
    return _serve(request, "")


@route("/{path:path}", http_method=GET_AND_HEAD, include_in_schema=False, opt={"maintenance_exempt": True})
async def spa_path(request: Request[Any, Any, Any], path: FromPath[str]) -> Response[Any]:
    return _serve(request, path.lstrip("/"))


# HEAD as GET without a body: uptime monitors ask for `/` that way (controlplane/head_requests.py).
webui_router = Router(path="/", route_handlers=[spa_root, spa_path], middleware=[head_without_body])
