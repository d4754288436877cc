"""Log lines: one JSON object per line carrying the request id of the request that logged it; in text format one
line per record whatever the message holds; no secret in either (the real processes' logs: tests/multiprocess)."""

from __future__ import annotations

import io
import json
import logging

import pytest

from controlplane.observability.logs import (
    UNMATCHED,
    JsonFormatter,
    RequestIdFilter,
    TextFormatter,
    log_request,
    request_id_scope,
)

# What a request can put in a logged field (a path, a header, a gateway's invoice id): every character a viewer or
# a collector may break a line at, then text shaped like a record of our own.
FORGED = "2026-01-01 00:00:00,000 INFO controlplane.access [-]: GET /api/admin 200"
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"]


def _logger(stream: io.StringIO, formatter: logging.Formatter | None = None) -> logging.Logger:
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(formatter or JsonFormatter())
    logger = logging.getLogger("test.json")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger


def test_a_line_logged_during_a_request_carries_its_id_and_extra_fields() -> None:
    stream = io.StringIO()
    logger = _logger(stream)
    scope = {"type": "http", "headers": [(b"x-request-id", b"abcdef0123456789")]}
    with request_id_scope(scope):  # type: ignore[arg-type]
        logger.info("nodo %s conectado", "srv-1", extra={"route": "/ws"})
    logger.info("fuera de una petición")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == "nodo srv-1 conectado"
    assert first["request_id"] == "abcdef0123456789"
    assert first["route"] == "/ws"
    assert first["level"] == "INFO"
    assert second["request_id"] == "-"


def test_an_exception_is_kept_inside_the_one_json_line() -> None:
    stream = io.StringIO()
    logger = _logger(stream)
    try:
        raise RuntimeError("falló")
    except RuntimeError:
        logger.exception("algo pasó")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    assert "RuntimeError: falló" in json.loads(lines[0])["exception"]


@pytest.mark.parametrize("formatter", [TextFormatter, JsonFormatter])
@pytest.mark.parametrize("brk", BREAKS, ids=[repr(b) for b in BREAKS])
def test_no_field_can_start_a_line_of_its_own(formatter: type[logging.Formatter], brk: str) -> None:
    stream = io.StringIO()
    logger = _logger(stream, formatter())
    logger.warning("invoice %s unknown", f"abc{brk}{FORGED}\x1b[2J")
    try:
        raise ValueError(f"bad{brk}{FORGED}")
    except ValueError:
        logger.exception("failed on %s", f"/x{brk}{FORGED}")
    lines = stream.getvalue().splitlines()  # splits at every break above, as the most eager viewer would
    assert not [line for line in lines if line.startswith(FORGED)]
    assert "\x1b" not in stream.getvalue()
    if formatter is JsonFormatter:
        assert len(lines) == 2
        assert json.loads(lines[0])["message"] == f"invoice abc{brk}{FORGED}\x1b[2J unknown"  # escaped, not lost
    else:
        escaped = brk.encode("unicode_escape").decode()
        assert lines[0].endswith(f"invoice abc{escaped}{FORGED}\\x1b[2J unknown")
        # A traceback's lines are indented: only a record starts at the margin.
        assert all(line.startswith("\t") for line in lines[2:])


@pytest.mark.parametrize("formatter", [TextFormatter, JsonFormatter])
def test_secrets_in_urls_and_headers_are_left_out_whoever_logs_them(formatter: type[logging.Formatter]) -> None:
    stream = io.StringIO()
    logger = _logger(stream, formatter())
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIiwic2lkIjoiMiJ9.c2lnbmF0dXJhLXNlY3JldGE"
    logger.info('127.0.0.1:5000 - "WebSocket /ws?token=%s" [accepted]', jwt)  # uvicorn's line
    logger.info("> GET /ws?v=1&token=no-es-un-jwt-secreto HTTP/1.1")  # websockets' at DEBUG
    logger.info("GET /mirror/enlace-secreto-1 and /password-reset?token=enlace-secreto-2")
    logger.info("< authorization: Bearer portador-secreto")
    logger.info("a public key stays: public_key=Pub+Key/AAAA=")
    text = stream.getvalue()
    for secret in (jwt, "no-es-un-jwt-secreto", "enlace-secreto-1", "enlace-secreto-2", "portador-secreto"):
        assert secret not in text
    assert "/ws?token=[redacted]" in text
    assert "/mirror/[token]" in text
    assert "public_key=Pub+Key/AAAA=" in text


def test_a_path_that_matched_no_route_is_logged_cut_short(caplog: pytest.LogCaptureFixture) -> None:
    """Paths run to tens of kilobytes: the access line keeps the start and says how much was left out."""
    path = "/" + "largo" * 2000
    with caplog.at_level(logging.INFO, logger="controlplane.access"):
        log_request("GET", UNMATCHED, path, 404, 0.001)
    (line,) = [record.getMessage() for record in caplog.records]
    assert line.startswith("GET /largolargo") and line.endswith("...[9801 more] 404 1.0 ms")
    assert len(line) < 300
