"""Structured logs: one JSON object per line, carrying the request id of the request that logged it."""

from __future__ import annotations

import io
import json
import logging

from controlplane.observability.logs import JsonFormatter, RequestIdFilter, request_id_scope


def _logger(stream: io.StringIO) -> logging.Logger:
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
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
