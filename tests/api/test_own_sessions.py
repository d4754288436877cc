"""The owner takes the account back without email: the list of sessions, closing one, closing all the others, and
wrong current passwords counted per session and per address, never per account (docs/security.md, "Settings";
docs/api.md, "Sessions"). Callers are told apart by address: the test client stands behind a trusted reverse proxy
and each session sends its own X-Forwarded-For and User-Agent."""

from __future__ import annotations

from typing import Any

import jwt
import pytest
from litestar.testing import AsyncTestClient, TestClient

from controlplane.app import create_app
from controlplane.services import Services
from controlplane.settings import RateLimit, RateLimits
from tests.api.factories import PASSWORD, bearer, make_user
from tests.api.test_session_sockets import _assert_closed, _assert_open, _greeted, _login

SESSIONS = "/api/client/sessions"
SETTINGS = "/api/client/settings"
PHONE = {"X-Forwarded-For": "198.51.100.10", "User-Agent": "Mozilla/5.0 (Android 14; Mobile) Firefox/132.0"}
LAPTOP = {"X-Forwarded-For": "198.51.100.20", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0"}
THIEF = {"X-Forwarded-For": "203.0.113.66", "User-Agent": "curl/8.5.0"}
NEW_PASSWORD = "otra-clave-segura-2"
TOO_MANY = "Demasiados intentos. Intente de nuevo en unos minutos."
# The shipped allowance per session; per address a smaller one than shipped, so that two sessions reach it here
# while one session alone (5) still cannot.
ADDRESS_ALLOWANCE = 8


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {
        "trusted_proxies": ("testclient",),
        "rate_limits": RateLimits(
            login_per_account=RateLimit(1000, 3600),
            login_per_address=RateLimit(1000, 300),
            tokens_per_address=RateLimit(1000, 600),
            password_checks_per_address=RateLimit(ADDRESS_ALLOWANCE, 3600),
        ),
    }


class Device:
    """One logged-in session: its address and browser go with every request it makes."""

    def __init__(self, client: AsyncTestClient[Any], origin: dict[str, str]) -> None:
        self.client, self.origin = client, origin
        self.tokens: dict[str, str] = {}

    @classmethod
    async def log_in(cls, client: AsyncTestClient[Any], origin: dict[str, str], username: str = "ana") -> Device:
        device = cls(client, origin)
        answer = await client.post(
            "/api/client/login", json={"username": username, "password": PASSWORD, "remember": True}, headers=origin
        )
        assert answer.status_code == 200, answer.text
        device.tokens = answer.json()
        return device

    @property
    def headers(self) -> dict[str, str]:
        return {**self.origin, "Authorization": f"Bearer {self.tokens['access']}"}

    async def call(self, method: str, path: str, **kwargs: Any) -> Any:
        return await self.client.request(method, path, headers=self.headers, **kwargs)

    async def sessions(self) -> list[dict[str, Any]]:
        answer = await self.call("GET", SESSIONS)
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]

    async def session_id(self) -> str:
        [mine] = [s for s in await self.sessions() if s["current"]]
        return str(mine["id"])

    async def works(self) -> bool:
        answer = await self.call("GET", SETTINGS)
        assert answer.status_code in (200, 401), answer.text
        return bool(answer.status_code == 200)

    async def wrong_password_change(self, n: int) -> Any:
        return await self.call(
            "PATCH", SETTINGS, json={"old_password": f"adivinanza-{n}", "new_password": "clave-del-ladron-1"}
        )


def assert_too_many(answer: Any) -> None:
    assert answer.status_code == 429, answer.text
    assert answer.json() == {"message": TOO_MANY, "code": "too_many_requests"}
    assert int(answer.headers["retry-after"]) >= 1


async def test_the_owner_sees_each_session_with_its_device_address_and_which_one_is_this(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    phone = await Device.log_in(client, PHONE)
    laptop = await Device.log_in(client, LAPTOP)
    listed = await laptop.sessions()
    assert [(s["device"], s["address"], s["current"]) for s in listed] == [
        (LAPTOP["User-Agent"], LAPTOP["X-Forwarded-For"], True),
        (PHONE["User-Agent"], PHONE["X-Forwarded-For"], False),
    ]
    assert all(s["created"] and s["last_used"] for s in listed)
    # The phone renews its token from another network: the list says where it was used last, and it comes first.
    moved = {**PHONE, "X-Forwarded-For": "192.0.2.44"}
    renewed = await client.post("/api/refresh-token", json={"refresh": phone.tokens["refresh"]}, headers=moved)
    assert renewed.status_code == 200, renewed.text
    first, second = await laptop.sessions()
    assert (first["address"], first["current"]) == ("192.0.2.44", False)
    assert first["last_used"] >= second["last_used"]


async def test_another_customers_sessions_are_neither_listed_nor_closed(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await make_user(services, "beto")
    ana = await Device.log_in(client, PHONE)
    beto = await Device.log_in(client, LAPTOP, "beto")
    anas_session = await ana.session_id()
    assert anas_session not in [s["id"] for s in await beto.sessions()]
    for body in (None, {"password": PASSWORD}):
        refused = await beto.call("DELETE", f"{SESSIONS}/{anas_session}", json=body)
        assert refused.status_code == 404, refused.text
        assert refused.json() == {"message": "Sesión no encontrada.", "code": "session_not_found"}
    assert await ana.works()


async def test_closing_another_session_needs_the_password_and_closing_this_one_does_not(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    phone = await Device.log_in(client, PHONE)
    laptop = await Device.log_in(client, LAPTOP)
    target = f"{SESSIONS}/{await phone.session_id()}"
    blank = await laptop.call("DELETE", target)
    assert blank.status_code == 422 and blank.json()["message"] == "Escriba su contraseña para confirmar."
    wrong = await laptop.call("DELETE", target, json={"password": "no-es-esta"})
    assert wrong.status_code == 422 and wrong.json()["code"] == "wrong_password"
    assert await phone.works()
    closed = await laptop.call("DELETE", target, json={"password": PASSWORD})
    assert closed.status_code == 200 and closed.json() == {"success": True, "message": "Sesión cerrada."}
    assert not await phone.works()
    again = await laptop.call("DELETE", target, json={"password": PASSWORD})
    assert again.status_code == 404
    # The session it is called from closes without a password, as a logout.
    own = await laptop.call("DELETE", f"{SESSIONS}/{await laptop.session_id()}")
    assert own.status_code == 200, own.text
    assert not await laptop.works()


async def test_closing_the_other_sessions_leaves_only_this_one(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await make_user(services, "beto")
    others = [await Device.log_in(client, PHONE), await Device.log_in(client, THIEF)]
    laptop = await Device.log_in(client, LAPTOP)
    beto = await Device.log_in(client, PHONE, "beto")
    wrong = await laptop.call("POST", f"{SESSIONS}/close-others", json={"password": "no-es-esta"})
    assert wrong.status_code == 422 and wrong.json()["code"] == "wrong_password"
    assert all([await other.works() for other in others])
    answer = await laptop.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"success": True, "message": "Se cerraron las demás sesiones.", "closed": 2}
    assert not any([await other.works() for other in others])
    assert await laptop.works() and await beto.works()
    assert [s["current"] for s in await laptop.sessions()] == [True]
    # The others' refresh tokens are over too: they cannot come back.
    for other in others:
        refused = await client.post("/api/refresh-token", json={"refresh": other.tokens["refresh"]})
        assert refused.status_code == 401, refused.text
    nothing = await laptop.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD})
    assert nothing.json() == {"success": True, "message": "No había otras sesiones abiertas.", "closed": 0}


async def test_a_thiefs_wrong_passwords_never_keep_the_owner_out(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """The review's case: a stolen session guesses the current password until it is refused; the owner logs in
    afresh, from the very same address (one NAT), and takes the account back."""
    await make_user(services, "ana")
    thief = await Device.log_in(client, THIEF)
    for n in range(RateLimits().password_checks_per_session.attempts):
        assert (await thief.wrong_password_change(n)).json()["code"] == "wrong_password"
    assert_too_many(await thief.wrong_password_change(99))
    assert_too_many(await thief.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD}))

    owner = await Device.log_in(client, {**PHONE, "X-Forwarded-For": THIEF["X-Forwarded-For"]})
    closed = await owner.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD})
    assert closed.status_code == 200 and closed.json()["closed"] == 1, closed.text
    assert not await thief.works()
    changed = await owner.call("PATCH", SETTINGS, json={"old_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert changed.status_code == 200, changed.text


async def test_a_throttled_thief_does_not_stop_the_owner_deleting_the_account(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    thief = await Device.log_in(client, THIEF)
    for n in range(RateLimits().password_checks_per_session.attempts):
        await thief.call("POST", "/api/client/settings/delete-account", json={"password": f"adivinanza-{n}"})
    assert_too_many(await thief.call("POST", "/api/client/settings/delete-account", json={"password": PASSWORD}))
    owner = await Device.log_in(client, LAPTOP)
    deleted = await owner.call("POST", "/api/client/settings/delete-account", json={"password": PASSWORD})
    assert deleted.status_code == 200, deleted.text


async def test_an_address_that_guesses_from_several_sessions_waits(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    first, second = await Device.log_in(client, THIEF), await Device.log_in(client, THIEF)
    per_session = RateLimits().password_checks_per_session.attempts
    for n in range(per_session):
        await first.wrong_password_change(n)
    for n in range(ADDRESS_ALLOWANCE - per_session):
        assert (await second.wrong_password_change(n)).json()["code"] == "wrong_password"
    # The address has used its allowance: a third session from it waits too, even with the right password...
    third = await Device.log_in(client, THIEF)
    assert_too_many(await third.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD}))
    # ...and the owner, anywhere else, is not slowed at all.
    owner = await Device.log_in(client, LAPTOP)
    closed = await owner.call("POST", f"{SESSIONS}/close-others", json={"password": PASSWORD})
    assert closed.status_code == 200 and closed.json()["closed"] == 3, closed.text


async def test_closed_sessions_lose_their_sockets_and_the_callers_stays_open(services: Services) -> None:
    await make_user(services, "ana")
    await make_user(services, "beto")
    with TestClient(app=create_app(services=services)) as http:
        phone, tablet, laptop, beto = _login(http), _login(http), _login(http), _login(http, "beto")
        sockets = [http.websocket_connect(f"/ws?token={t['access']}") for t in (phone, tablet, laptop, beto)]
        with sockets[0] as on_phone, sockets[1] as on_tablet, sockets[2] as on_laptop, sockets[3] as betos:
            for socket in (on_phone, on_tablet, on_laptop, betos):
                _greeted(socket)
            phone_session = jwt.decode(phone["access"], options={"verify_signature": False})["sid"]
            one = http.request(
                "DELETE", f"{SESSIONS}/{phone_session}", json={"password": PASSWORD}, headers=bearer(laptop)
            )
            assert one.status_code == 200, one.text
            _assert_closed(on_phone)
            _assert_open(on_tablet)
            others = http.post(f"{SESSIONS}/close-others", json={"password": PASSWORD}, headers=bearer(laptop))
            assert others.status_code == 200 and others.json()["closed"] == 1, others.text
            _assert_closed(on_tablet)
            _assert_open(on_laptop)
            _assert_open(betos)
