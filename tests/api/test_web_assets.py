"""The web client served like a real site: precompressed twins with the right headers, year-long caching for hashed
assets, index.html revalidated on every visit (controlplane/webui.py, docs/webui.md "Serving")."""

from __future__ import annotations

import gzip
import logging
import zlib
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.webui import accepted_encodings

SCRIPT = b"console.log('hola');\n" * 200
# The server sends twins as they are, so any bytes do for brotli (the build makes real ones: webui/scripts).
BROTLI = b"\x1b\xa7\x00 brotli twin"
INDEX = b"<!doctype html><html lang='es'><div id='root'></div><script src='/assets/index-Ab12.js'></script></html>"


@pytest.fixture
def settings_overrides(tmp_path: Path) -> dict[str, Any]:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_bytes(INDEX)
    (dist / "assets" / "index-Ab12.js").write_bytes(SCRIPT)
    (dist / "assets" / "index-Ab12.js.br").write_bytes(BROTLI)
    (dist / "assets" / "index-Ab12.js.gz").write_bytes(gzip.compress(SCRIPT))
    (dist / "assets" / "logo-Cd34.svg").write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>")  # too small to twin
    return {"webui_dist": dist}


async def _raw(client: AsyncTestClient[Any], path: str, accept: str) -> tuple[Any, bytes]:
    """The answer and its body as sent on the wire (httpx would decode the coding)."""
    async with client.stream("GET", path, headers={"Accept-Encoding": accept}) as answer:
        body = b"".join([chunk async for chunk in answer.aiter_raw()])
    return answer, body


async def test_a_browser_taking_brotli_gets_the_brotli_twin(client: AsyncTestClient[Any]) -> None:
    answer, body = await _raw(client, "/assets/index-Ab12.js", "gzip, deflate, br, zstd")
    assert answer.status_code == 200
    assert answer.headers["content-encoding"] == "br"
    assert answer.headers["vary"] == "Accept-Encoding"
    assert "javascript" in answer.headers["content-type"]
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert body == BROTLI
    assert int(answer.headers["content-length"]) == len(BROTLI)


async def test_immutable_assets_carry_no_revalidation_headers_and_the_page_keeps_them(
    client: AsyncTestClient[Any],
) -> None:
    """A hashed asset is never revalidated nor downloaded as a file: no etag, last-modified, content-disposition
    (about 140 bytes on each script of a first visit on metered data); index.html, revalidated, keeps its etag."""
    asset, _ = await _raw(client, "/assets/index-Ab12.js", "gzip, deflate, br, zstd")
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    for name in ("etag", "last-modified", "content-disposition"):
        assert name not in asset.headers, name
    page, _ = await _raw(client, "/", "gzip")
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["etag"]


async def test_gzip_only_and_refused_brotli_get_gzip(client: AsyncTestClient[Any]) -> None:
    for accept in ("gzip", "br;q=0, gzip;q=0.8"):
        answer, body = await _raw(client, "/assets/index-Ab12.js", accept)
        assert answer.headers["content-encoding"] == "gzip", accept
        assert answer.headers["vary"] == "Accept-Encoding"
        assert zlib.decompress(body, 16 + zlib.MAX_WBITS) == SCRIPT


async def test_no_coding_accepted_gets_the_plain_file_still_marked_vary(client: AsyncTestClient[Any]) -> None:
    answer, body = await _raw(client, "/assets/index-Ab12.js", "identity")
    assert "content-encoding" not in answer.headers
    assert answer.headers["vary"] == "Accept-Encoding"  # a shared cache must not hand this to a brotli browser
    assert body == SCRIPT


async def test_a_file_without_twins_is_sent_plain_without_vary(client: AsyncTestClient[Any]) -> None:
    answer, body = await _raw(client, "/assets/logo-Cd34.svg", "br, gzip")
    assert answer.status_code == 200
    assert "content-encoding" not in answer.headers
    assert "vary" not in answer.headers
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert body.startswith(b"<svg")


async def test_index_html_is_never_used_from_cache_unasked(client: AsyncTestClient[Any]) -> None:
    for path in ("/", "/dashboard/peers", "/index.html"):
        answer, body = await _raw(client, path, "br, gzip")
        assert answer.status_code == 200, path
        assert answer.headers["cache-control"] == "no-cache", path
        assert body == INDEX, path


def test_accept_encoding_qualities() -> None:
    assert accepted_encodings("gzip, deflate, br") == {"gzip", "deflate", "br"}
    assert accepted_encodings("br;q=0, gzip;q=0.5") == {"gzip"}
    assert accepted_encodings("BR; q=1.0") == {"br"}
    assert accepted_encodings("") == set()
    assert accepted_encodings("gzip;q=nada") == set()


LONG_SEGMENT = "largo" * 60  # 300 bytes: one file name holds at most 255 (the file system answered ENAMETOOLONG)
LONG_PATHS = [
    f"/{LONG_SEGMENT}",
    f"/assets/{LONG_SEGMENT}.js",
    f"/salas/{LONG_SEGMENT}",
    "/" + "a/" * 2100,  # short segments, past a whole path's limit (4096 bytes)
]


@pytest.mark.parametrize("path", LONG_PATHS, ids=["segment", "asset", "page", "whole-path"])
async def test_a_path_too_long_for_a_file_name_is_not_found_and_logged_bounded(
    client: AsyncTestClient[Any], caplog: pytest.LogCaptureFixture, path: str
) -> None:
    """It answered 500 with a stack trace that held the path twice (the web client's files are looked up on disk)."""
    with caplog.at_level(logging.DEBUG):
        answer = await client.get(path)
        refused = await client.post(path, json={})  # no route takes a POST there: the path is logged as it came
    assert answer.status_code == 404, (answer.status_code, answer.text[:200])
    assert answer.json() == {"message": "No encontrado.", "code": "not_found"}
    assert refused.status_code in (404, 405), refused.text[:200]
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    lines = [record.getMessage() for record in caplog.records if not record.name.startswith(("httpx", "httpcore"))]
    assert lines and max(len(line) for line in lines) < 600, max(lines, key=len)[:300]


async def _raw_asgi(client: AsyncTestClient[Any], method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """One request straight into the app, every message it sends kept: what reaches the wire before any server
    or HTTP client could drop a body."""
    sent: list[Any] = []
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
        "headers": [(b"host", b"testserver.local"), (b"accept-encoding", b"identity")],
        "client": ("127.0.0.1", 40000), "server": ("testserver.local", 80), "state": {},
    }  # fmt: skip

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await client.app(scope, receive, send)  # type: ignore[arg-type]
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {bytes(k).decode().lower(): bytes(v).decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], headers, body


@pytest.mark.parametrize("path", ["/", "/dashboard/peers", "/assets/index-Ab12.js", "/healthz", "/readyz"])
async def test_head_answers_as_get_without_a_body(client: AsyncTestClient[Any], path: str) -> None:
    """Uptime monitors check a site with HEAD: `/` and the web client's files answered 405."""
    status, headers, body = await _raw_asgi(client, "HEAD", path)
    got_status, got_headers, got_body = await _raw_asgi(client, "GET", path)
    assert (status, got_status) == (200, 200), path
    assert body == b"" and got_body != b""
    assert headers["content-type"] == got_headers["content-type"]
    assert headers["content-length"] == got_headers["content-length"] == str(len(got_body))
