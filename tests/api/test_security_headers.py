"""Security headers on every HTTP answer: JSON, errors, the mirror link, the web client; HSTS only over https."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from controlplane.app import create_app
from controlplane.domain.accounts.models import Role
from controlplane.security_headers import content_security_policy
from controlplane.services import Services
from controlplane.settings import Settings
from tests.api.factories import PASSWORD, bearer, logged_in, login, make_peer, make_server, make_user


def _directives(csp: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in csp.split(";") if part.strip()}


def assert_hardened(headers: Any, path: str) -> None:
    csp = _directives(headers["content-security-policy"])
    assert csp["frame-ancestors"] == ["'none'"], path
    assert headers["x-content-type-options"] == "nosniff", path
    if headers["content-type"].startswith("text/html"):
        assert csp["object-src"] == ["'none'"], path
        assert headers["referrer-policy"] == "no-referrer", path
        assert headers["x-frame-options"] == "DENY", path
    else:
        # Not a page: opened on its own it may load nothing at all (no script, no plug-in, no frame).
        assert csp == {"default-src": ["'none'"], "frame-ancestors": ["'none'"]}, path


async def test_every_kind_of_answer_carries_the_headers(services: Services, client: AsyncTestClient[Any]) -> None:
    auth = await logged_in(services, client, "ana")
    server = await make_server(services)
    owner = await make_user(services, "bea")
    peer = await make_peer(services, owner, "movil", server)
    mirror = services.peers.mirror_link(peer).split("testserver.local", 1)[1]
    answers = {
        "/api/client": await client.get("/api/client"),
        "/api/client/accounts/peers": await client.get("/api/client/accounts/peers", headers=auth),
        "401": await client.get("/api/client/accounts/peers"),
        "404 api": await client.get("/api/client/nada"),
        "422": await client.post("/api/client/login", content=b"{", headers={"content-type": "application/json"}),
        "mirror": await client.get(mirror),
        "spa": await client.get("/dashboard/peers"),
        "asset 404": await client.get("/assets/nada.js"),
    }
    for name, answer in answers.items():
        assert_hardened(answer.headers, name)
        assert "strict-transport-security" not in answer.headers, name  # plain http: HSTS would be a lie
    assert answers["spa"].headers["content-type"].startswith("text/html")  # the page's whole set was checked


async def test_answers_that_are_not_pages_carry_a_short_set(services: Services, client: AsyncTestClient[Any]) -> None:
    """A JSON answer's headers: the page-only ones (CSP's sources, framing, referrer, COOP, permissions) left out,
    some 600 bytes fewer on each of the two dozen answers of a customer's first visit on mobile data."""
    auth = await logged_in(services, client, "ana")
    answer = await client.get("/api/client/accounts/peers", headers=auth)
    page = await client.get("/dashboard/peers")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    for page_only in ("referrer-policy", "x-frame-options", "cross-origin-opener-policy", "permissions-policy"):
        assert page_only not in answer.headers, page_only
        assert page_only in page.headers, page_only
    own = sum(len(k) + len(v) + 4 for k, v in answer.headers.items() if k != "x-request-id")
    assert own < 300, answer.headers


async def test_the_web_client_policy_allows_what_it_needs_and_nothing_more(settings: Settings) -> None:
    csp = _directives(content_security_policy(settings))
    assert csp["script-src"] == ["'self'", "https://hcaptcha.com", "https://*.hcaptcha.com"]  # no inline scripts
    assert "'unsafe-eval'" not in " ".join(" ".join(v) for v in csp.values())
    assert csp["style-src"][:2] == ["'self'", "'unsafe-inline'"]  # Mantine's CSS variables and style props
    assert "https://*.hcaptcha.com" in csp["frame-src"]  # the captcha challenge iframe
    assert "ws://testserver.local" in csp["connect-src"]  # the live socket
    assert csp["img-src"] == ["'self'", "data:", "blob:"]  # QR codes of the configuration


@pytest.mark.parametrize(
    ("provider", "host"),
    [("turnstile", "https://challenges.cloudflare.com"), ("recaptcha", "https://www.google.com/recaptcha/")],
)
def test_each_captcha_provider_gets_its_own_hosts(settings: Settings, provider: str, host: str) -> None:
    csp = _directives(content_security_policy(msgspec.structs.replace(settings, captcha_provider=provider)))
    assert host in csp["script-src"]
    assert host in csp["frame-src"]
    assert "https://hcaptcha.com" not in csp["script-src"]


def test_without_captcha_no_third_party_is_allowed(settings: Settings) -> None:
    csp = content_security_policy(msgspec.structs.replace(settings, captcha_secret=""))
    assert "https://" not in csp
    assert _directives(csp)["frame-src"] == ["'none'"]


async def test_https_deployments_send_hsts_and_a_wss_socket_source(services: Services) -> None:
    https = msgspec.structs.replace(services.settings, client_url="https://vpn.example.org")
    services.settings = https
    async with AsyncTestClient(app=create_app(services=services), base_url="https://vpn.example.org") as client:
        answer = await client.get("/api/client/status")
        page = await client.get("/dashboard/peers")
    assert answer.headers["strict-transport-security"].startswith("max-age=31536000")
    assert page.headers["strict-transport-security"].startswith("max-age=31536000")
    assert "wss://vpn.example.org" in _directives(page.headers["content-security-policy"])["connect-src"]


async def test_no_api_viewer_loads_code_from_elsewhere_onto_this_origin(client: AsyncTestClient[Any]) -> None:
    """The origin's storage holds the sessions' tokens: no Swagger/ReDoc/Scalar page pulling scripts from a CDN."""
    for viewer in ("", "/swagger", "/redoc", "/elements", "/rapidoc", "/scalar"):
        answer = await client.get(f"/api/schema{viewer}")
        assert answer.status_code == 404 or "cdn." not in answer.text, viewer
        assert answer.status_code == 404 or "<script" not in answer.text, viewer
    document = await client.get("/api/schema/openapi.json")
    assert document.status_code == 200 and document.json()["openapi"].startswith("3.")
    assert "https://cdn.jsdelivr.net" not in document.headers["content-security-policy"]


async def test_private_answers_are_never_stored_by_a_cache(services: Services, client: AsyncTestClient[Any]) -> None:
    """Peer list, configuration download, mirror answer, invoices, settings, staff lists, errors: `no-store`."""
    ana = await make_user(services, "ana")
    auth = bearer(await login(client, "ana"))
    peer = await make_peer(services, ana, "movil", await make_server(services))
    mirror = services.peers.mirror_link(peer).split("testserver.local", 1)[1]
    await make_user(services, "jefa", role=Role.ADMIN)
    staff = bearer(await login(client, "jefa", admin=True))
    answers = {
        "peer list": await client.get("/api/client/accounts/peers", headers=auth),
        "config download": await client.get(f"/api/client/accounts/peers/{peer.id}", headers=auth),
        "mirror": await client.get(mirror),
        "invoice": await client.get("/api/client/invoices/desconocida", headers=auth),
        "settings": await client.get("/api/client/settings", headers=auth),
        "staff users": await client.get("/api/admin/users", headers=staff),
        "login": await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD}),
        "401": await client.get("/api/client/accounts/peers"),
    }
    assert answers["config download"].status_code == 200 and answers["mirror"].status_code == 200
    for what, answer in answers.items():
        assert answer.headers["cache-control"] == "no-store", what
