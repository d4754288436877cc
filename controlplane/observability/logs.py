"""Log set-up for the control plane: plain text or one JSON object per line, each line with its request id."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime

from litestar.types import Scope

request_id_var: ContextVar[str] = ContextVar("request_id", default="-")
# A request id from the reverse proxy is kept when it looks like one (nginx's $request_id is 32 hex digits);
# anything else (long, odd characters) is replaced rather than copied into every log line.
_GOOD_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
access_log = logging.getLogger("controlplane.access")
UNMATCHED = "<unmatched>"

# Attributes every LogRecord has; whatever else a call passed through `extra=` goes into the JSON object.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "request_id"}


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        entry.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure_logging(log_format: str = "text", level: str = "INFO") -> None:
    """Called once by the command line; replaces whatever handlers were there (uvicorn's included)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # one line per job run drowns the log
    # Our access line (see log_request) carries the request id and route; uvicorn's would repeat it without them.
    logging.getLogger("uvicorn.access").disabled = True
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True


@contextlib.contextmanager
def request_id_scope(scope: Scope) -> Iterator[str]:
    """Sets the request id (the proxy's X-Request-ID when sane, else a new one) for everything this request logs."""
    given = ""
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            given = value.decode("latin-1")
            break
    request_id = given if _GOOD_REQUEST_ID.match(given) else uuid.uuid4().hex
    token = request_id_var.set(request_id)
    try:
        yield request_id
    finally:
        request_id_var.reset(token)


def log_request(method: str, route: str, path: str, status: int, seconds: float) -> None:
    # The route template, not the path: secrets travel in paths (/mirror/{token}, the reset and verification links
    # the web client serves) and in query strings (/ws?token=...); the request id ties a line to the rest.
    # Only a path that matched no route is shown as it came, so that probes and broken links stay visible.
    access_log.info(
        "%s %s %d %.1f ms",
        method,
        path if route == UNMATCHED else route,
        status,
        seconds * 1000,
        extra={"method": method, "route": route, "status": status, "duration_ms": round(seconds * 1000, 2)},
    )
