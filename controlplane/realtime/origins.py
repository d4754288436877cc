"""The live socket's origin check, and its one log line per refused origin (docs/api.md, live push)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

# Refused origins already logged by this process; bounded, so a flood of made-up origins cannot grow it for ever.
_reported: set[str] = set()
MAX_REPORTED = 256


def origin_allowed(origin: str | None, allowed: tuple[str, ...]) -> bool:
    """Browsers always send Origin; a page from another site must not ride a user's token into our socket. A
    client without Origin (a script, an app) is not a browser page and carries its own token."""
    return origin is None or origin.rstrip("/") in allowed


def report_refused(origin: str, allowed: tuple[str, ...]) -> None:
    """Once per origin and process: an operator opening the site under another name sees why live updates fail."""
    if origin in _reported or len(_reported) >= MAX_REPORTED:
        return
    _reported.add(origin)
    log.warning(
        "live socket refused from origin %r: expected %s (set VPN_CLIENT_URL to the address browsers open, "
        "or list extra origins in VPN_ALLOWED_ORIGINS)",
        origin[:200],
        ", ".join(allowed) or "none",
    )
