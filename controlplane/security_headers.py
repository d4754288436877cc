"""Security headers on every HTTP answer: CSP suited to the built web client, no framing, no referrer, nosniff, HSTS.

One `before_send` hook at the application level, so error answers, static files and the SPA fallback get them too.
Pages (text/html) get the whole set; every other answer (JSON, scripts, styles, images) a short one: a browser
applies CSP, Referrer-Policy, X-Frame-Options, COOP and Permissions-Policy to documents only, and those 700 bytes
on each of the 25 answers of a first visit were a tenth of what a customer on Cuban mobile data paid for it
(docs/benchmarks.md, "Session 16"). The short set is stricter, not looser: opened on its own as a document, a JSON
or SVG answer may load nothing and be framed by no one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from litestar.types import Message, Scope

from controlplane.settings import Settings

# What each captcha provider's widget loads (their documented CSP needs): script, iframe, styles, API calls.
CAPTCHA_SOURCES: dict[str, dict[str, tuple[str, ...]]] = {
    "hcaptcha": {
        "script-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
        "frame-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
        "style-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
        "connect-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
    },
    "turnstile": {
        "script-src": ("https://challenges.cloudflare.com",),
        "frame-src": ("https://challenges.cloudflare.com",),
        "connect-src": ("https://challenges.cloudflare.com",),
    },
    "recaptcha": {
        "script-src": ("https://www.google.com/recaptcha/", "https://www.gstatic.com/recaptcha/"),
        "frame-src": ("https://www.google.com/recaptcha/", "https://recaptcha.google.com/recaptcha/"),
        "connect-src": ("https://www.google.com/recaptcha/",),
    },
}


def content_security_policy(settings: Settings) -> str:
    """The web client's policy: own scripts only; inline styles (Mantine writes CSS variables and style props
    inline); QR codes as data:/blob: images; the live socket on the client URL's host; the captcha provider."""
    directives: dict[str, list[str]] = {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "frame-src": ["'none'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "object-src": ["'none'"],
    }
    client = urlsplit(settings.client_url)
    if client.netloc:
        # 'self' covers same-origin ws:/wss: in current browsers; older Safari needs the socket origin spelt out.
        directives["connect-src"].append(f"{'wss' if client.scheme == 'https' else 'ws'}://{client.netloc}")
    if settings.captcha_enabled:
        for directive, sources in CAPTCHA_SOURCES.get(settings.captcha_provider, {}).items():
            if directives[directive] == ["'none'"]:
                directives[directive] = []
            directives[directive].extend(sources)
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


# Everything that is not a page: nothing may be loaded by it or frame it, and no type sniffing.
RESOURCE_POLICY = "default-src 'none'; frame-ancestors 'none'"


def resource_headers(settings: Settings) -> list[tuple[bytes, bytes]]:
    headers = {"content-security-policy": RESOURCE_POLICY, "x-content-type-options": "nosniff"}
    if settings.client_url.startswith("https://"):
        headers["strict-transport-security"] = "max-age=31536000; includeSubDomains"
    return [(k.encode(), v.encode()) for k, v in headers.items()]


def security_headers(settings: Settings) -> list[tuple[bytes, bytes]]:
    """A page's headers (the web client's index.html, the mirror link's page, an HTML error)."""
    headers = {
        "content-security-policy": content_security_policy(settings),
        "x-content-type-options": "nosniff",
        # Mirror links and reset links carry secrets in their URL: never send them on as a Referer.
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
        "cross-origin-opener-policy": "same-origin",
        "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
    }
    if settings.client_url.startswith("https://"):
        headers["strict-transport-security"] = "max-age=31536000; includeSubDomains"
    return [(k.encode(), v.encode()) for k, v in headers.items()]


# API answers (peer lists, configurations, invoices, sessions' tokens) and mirror links carry one customer's data:
# no browser, proxy or shared cache may keep a copy (docs/security.md, "no-store"). A handler that sets its own
# Cache-Control keeps it.
PRIVATE_PREFIXES = ("/api/", "/mirror/")
NO_STORE = (b"cache-control", b"no-store")


def security_headers_hook(settings: Settings) -> Callable[[Message, Scope], Awaitable[None]]:
    """A Litestar `before_send` hook: it sees every answer, errors and static files included."""
    page = security_headers(settings)
    resource = resource_headers(settings)

    async def add_headers(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            return
        headers = list(message.get("headers") or [])
        present = {bytes(k).lower() for k, _ in headers}
        content_type = next((bytes(v).lower() for k, v in headers if bytes(k).lower() == b"content-type"), b"")
        # No content type (a 204, a HEAD of a page): the page's set, the safe side.
        common = resource if content_type and not content_type.startswith(b"text/html") else page
        extra = [*common, NO_STORE] if scope["path"].startswith(PRIVATE_PREFIXES) else common
        message["headers"] = [*headers, *(h for h in extra if h[0] not in present)]

    return add_headers
