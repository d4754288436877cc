"""Log set-up for the control plane: plain text or one JSON object per line, each line with its request id.

Every line, whoever logged it (our code, uvicorn, websockets, SQLAlchemy), goes through `redact` and, in text
format, through `escape`: no secret reaches the log and no input can start a line of its own (docs/security.md,
logs).
"""

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


# Secrets that travel in URLs and headers, in whatever line a library writes them: query parameters named like a
# secret (/ws?token=, /password-reset?token=, /verify-email?token=), mirror links, bearer tokens and anything
# shaped like a JWT (our access tokens). The value ends where a URL or a quoted field would end.
_VALUE = r"[^&\s\"'\\#;,)]+"
_REDACTIONS = (
    (
        re.compile(
            r"(?i)(?<![A-Za-z0-9_-])((?:token|access|refresh|access_token|refresh_token|secret|password|key|"
            r"credential|signature)=)" + _VALUE
        ),
        r"\1[redacted]",
    ),
    (re.compile(r"(/mirror/)(?!\[token\]|\{token\})" + _VALUE.replace(";,", ";,/?")), r"\1[token]"),
    (re.compile(r"(?i)\b(bearer\s+)" + _VALUE), r"\1[redacted]"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), "[jwt]"),
)
# Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: a viewer or collector may
# break a line at any of them, so an input carrying one could forge a line of its own.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def redact(text: str) -> str:
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def escape(text: str) -> str:
    """One line: control characters written as escapes (\\n, \\x1b, \\u2028)."""
    return _CONTROL.sub(_escaped, text)


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
        # json.dumps escapes C0 controls but leaves C1 controls and U+2028/U+2029 raw (ensure_ascii=False).
        line = redact(json.dumps(entry, ensure_ascii=False, default=str))
        return _CONTROL.sub(lambda match: f"\\u{ord(match.group()):04x}", line)


class TextFormatter(logging.Formatter):
    """`time LEVEL logger [request id]: message`, always one line; a traceback follows on lines that begin with a
    tab, so no line that begins at the margin comes from anything but a log call."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        record.message = escape(record.getMessage())
        record.asctime = self.formatTime(record, self.datefmt)
        if not hasattr(record, "request_id"):
            record.request_id = "-"
        line = self.formatMessage(record)
        extra = []
        if record.exc_info:
            extra.append(self.formatException(record.exc_info))
        if record.stack_info:
            extra.append(self.formatStack(record.stack_info))
        for block in extra:
            line += "".join("\n\t" + escape(part) for part in block.splitlines())
        return redact(line)


def configure_logging(log_format: str = "text", level: str = "INFO") -> None:
    """Called once by the command line; replaces whatever handlers were there (uvicorn's included)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
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


# A logged path is cut here: paths run to tens of kilobytes (uvicorn takes request lines of up to 64 KiB), and a
# line per request must stay readable and bounded whatever a client sends.
LOGGED_PATH_CHARS = 200


def bounded_path(path: str) -> str:
    """`path` as logged: its first LOGGED_PATH_CHARS characters, and how many more it had."""
    if len(path) <= LOGGED_PATH_CHARS:
        return path
    return f"{path[:LOGGED_PATH_CHARS]}...[{len(path) - LOGGED_PATH_CHARS} more]"


def log_request(method: str, route: str, path: str, status: int, seconds: float) -> None:
    # The route template, not the path: secrets travel in paths (/mirror/{token}, the reset and verification links
    # the web client serves) and in query strings (/ws?token=...); the request id ties a line to the rest.
    # Only a path that matched no route is shown as it came, so that probes and broken links stay visible.
    access_log.info(
        "%s %s %d %.1f ms",
        method,
        bounded_path(path) if route == UNMATCHED else route,
        status,
        seconds * 1000,
        extra={"method": method, "route": route, "status": status, "duration_ms": round(seconds * 1000, 2)},
    )
