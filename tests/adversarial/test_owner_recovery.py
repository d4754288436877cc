"""The owner always gets the account back without email, against the real control plane (the suite's subprocess):
a thief holding a stolen session guesses the current password until it is refused, and the owner, logging in afresh,
still changes the password and closes the other sessions (the thief's token then answers 401); deleting the account
leaves no trace of where it was used (docs/security.md, "Third round"). Each case has a customer of its own,
registered from a loopback address of its own; the thief and the owner come from addresses of their own too (and,
in one case, from the same one, as behind one carrier's NAT)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from sqlalchemy import func, select

from controlplane.domain.accounts.models import LoginSession, RefreshToken
from controlplane.services import build_services
from controlplane.settings import RateLimits, Settings
from tests.adversarial.conftest import Deployment
from tests.adversarial.test_session_endings import WAIT, new_account
from tests.api.factories import PASSWORD

NEW_PASSWORD = "otra-clave-segura-2"
SESSIONS = "/api/client/sessions"
SETTINGS = "/api/client/settings"
TOO_MANY = "Demasiados intentos. Intente de nuevo en unos minutos."
OWNER_BROWSER = "Mozilla/5.0 (Android 14; Mobile) Firefox/132.0"
THIEF_TOOL = "curl/8.5.0"


def _address() -> str:
    return "127." + ".".join(str(random.randrange(2, 250)) for _ in range(3))


class Device:
    """A logged-in session of `username`, making every request from `address` with `browser`'s user agent."""

    def __init__(self, deployment: Deployment, address: str, browser: str) -> None:
        self.deployment, self.address, self.browser = deployment, address, browser
        self.tokens: dict[str, str] = {}

    @asynccontextmanager
    async def http(self) -> AsyncIterator[httpx.AsyncClient]:
        transport = httpx.AsyncHTTPTransport(local_address=self.address)
        headers = {"User-Agent": self.browser}
        if self.tokens:
            headers["Authorization"] = f"Bearer {self.tokens['access']}"
        async with httpx.AsyncClient(
            base_url=self.deployment.url, timeout=WAIT * 2, transport=transport, headers=headers
        ) as http:
            yield http

    async def log_in(self, username: str, password: str = PASSWORD) -> Device:
        async with self.http() as http:
            answer = await http.post("/api/client/login", json={"username": username, "password": password})
        assert answer.status_code == 200, answer.text
        self.tokens = answer.json()
        return self

    async def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        async with self.http() as http:
            return await http.request(method, path, **kwargs)

    async def token_works(self) -> bool:
        answer = await self.call("GET", "/api/client/verify-token")
        assert answer.status_code in (200, 401), answer.text
        return answer.status_code == 200


async def _thief_throttled(thief: Device) -> httpx.Response:
    """The stolen session guesses the current password until it is told to wait; returns that answer."""
    shipped = RateLimits().password_checks_per_session.attempts
    for n in range(shipped):
        guess = await thief.call("PATCH", SETTINGS, json={"old_password": f"adivina-{n}", "new_password": "x" * 12})
        assert guess.status_code == 422 and guess.json()["code"] == "wrong_password", guess.text
    refused = await thief.call("PATCH", SETTINGS, json={"old_password": "adivina-99", "new_password": "x" * 12})
    assert refused.status_code == 429, refused.text
    assert refused.json() == {"message": TOO_MANY, "code": "too_many_requests"}
    assert int(refused.headers["retry-after"]) >= 1
    return refused


async def test_the_owner_changes_the_password_while_the_thiefs_session_is_throttled(deployment: Deployment) -> None:
    account = await new_account(deployment)
    thief = await Device(deployment, _address(), THIEF_TOOL).log_in(account.username)
    await _thief_throttled(thief)

    owner = await Device(deployment, _address(), OWNER_BROWSER).log_in(account.username)
    changed = await owner.call("PATCH", SETTINGS, json={"old_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert changed.status_code == 200, changed.text
    assert changed.json()["message"] == "Contraseña cambiada correctamente."
    assert not await thief.token_works()
    async with thief.http() as http:
        renewed = await http.post("/api/refresh-token", json={"refresh": thief.tokens["refresh"]})
    assert renewed.status_code == 401, renewed.text
    assert await owner.token_works()


async def test_the_owner_closes_the_other_sessions_from_behind_the_thiefs_own_address(
    deployment: Deployment,
) -> None:
    account = await new_account(deployment)
    shared_address = _address()  # one carrier's NAT: the thief and the owner come from the same address
    thief = await Device(deployment, shared_address, THIEF_TOOL).log_in(account.username)
    await _thief_throttled(thief)
    # Right or wrong, the thief's session waits now (the answer never tells which guess was right).
    again = await thief.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD})
    assert again.status_code == 429, again.text

    owner = await Device(deployment, shared_address, OWNER_BROWSER).log_in(account.username)
    listed = (await owner.call("GET", SESSIONS)).json()
    assert {(s["device"], s["current"]) for s in listed} == {(THIEF_TOOL, False), (OWNER_BROWSER, True)}
    closed = await owner.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD})
    assert closed.status_code == 200, closed.text
    assert closed.json() == {"success": True, "message": "Se cerraron las demás sesiones.", "closed": 1}
    assert not await thief.token_works()
    assert [s["device"] for s in (await owner.call("GET", SESSIONS)).json()] == [OWNER_BROWSER]


async def _traces(deployment: Deployment, session_ids: list[str]) -> tuple[set[tuple[Any, Any]], int]:
    """What the process's database keeps of these sessions: (address, device) pairs and refresh tokens."""
    services = build_services(Settings.from_env(deployment.process.env))
    try:
        async with services.sessionmaker() as db:
            rows = await db.execute(
                select(LoginSession.ip_address, LoginSession.user_agent).where(LoginSession.id.in_(session_ids))
            )
            tokens = await db.scalar(
                select(func.count()).select_from(RefreshToken).where(RefreshToken.session_id.in_(session_ids))
            )
        return {tuple(row) for row in rows.all()}, int(tokens or 0)
    finally:
        await services.close()


async def test_deleting_the_account_wipes_where_it_was_used(deployment: Deployment) -> None:
    account = await new_account(deployment)
    phone = await Device(deployment, _address(), OWNER_BROWSER).log_in(account.username)
    laptop = await Device(deployment, _address(), THIEF_TOOL).log_in(account.username)
    session_ids = [s["id"] for s in (await laptop.call("GET", SESSIONS)).json()]
    traces, tokens = await _traces(deployment, session_ids)
    assert traces == {(phone.address, OWNER_BROWSER), (laptop.address, THIEF_TOOL)} and tokens == 2

    gone = await phone.call("POST", "/api/client/settings/delete-account", json={"password": PASSWORD})
    assert gone.status_code == 200, gone.text
    assert await _traces(deployment, session_ids) == ({(None, None)}, 0)
    assert not await laptop.token_works()
