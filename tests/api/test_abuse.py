"""Abuse: brute force, floods, scraping, oversized bodies, socket floods.

Each is answered with 429 (Retry-After) or 413 and a Spanish message in the usual error shape, and the service
keeps answering everyone else. Callers are told apart by address: the test client stands behind a trusted
reverse proxy and each "attacker" sends its own X-Forwarded-For.
"""

from __future__ import annotations

from typing import Any

import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import AsyncTestClient, TestClient

from controlplane.app import create_app
from controlplane.realtime import socket as live
from controlplane.services import Services
from controlplane.settings import RateLimit, RateLimits
from tests.api.factories import PASSWORD, bearer, login, make_peer, make_server, make_user
from tests.fakes.captcha import GOOD_TOKEN

ATTACKER = {"X-Forwarded-For": "203.0.113.66"}
SOMEONE_ELSE = {"X-Forwarded-For": "198.51.100.7"}
TOO_MANY = "Demasiados intentos. Intente de nuevo en unos minutos."


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {
        "trusted_proxies": ("testclient",),
        "rate_limits": RateLimits(
            login_per_account=RateLimit(5, 300),
            login_per_address=RateLimit(8, 300),
            register_per_address=RateLimit(3, 3600),
            recovery_per_account=RateLimit(2, 3600),
            recovery_per_address=RateLimit(4, 3600),
            mirror_per_token=RateLimit(5, 60),
            mirror_others_per_token=RateLimit(5, 60),
            mirror_misses_per_address=RateLimit(5, 600),
            tokens_per_address=RateLimit(5, 600),
            socket_handshakes_per_address=RateLimit(1000, 60),
        ),
        "socket_connections_per_address": 3,
        "socket_messages_per_minute": 5,
        "max_body_bytes": 4096,
    }


def assert_too_many(answer: Any) -> None:
    assert answer.status_code == 429, answer.text
    assert answer.json() == {"message": TOO_MANY, "code": "too_many_requests"}
    assert int(answer.headers["retry-after"]) >= 1


async def test_login_brute_force_locks_the_account_not_the_service(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await make_user(services, "beto")
    # The guesser solves the captcha the account asks for after three failures: the pair's wait holds regardless.
    for _ in range(5):
        wrong = {"username": "ana", "password": "no-es-esta", "captcha_token": GOOD_TOKEN}
        assert (await client.post("/api/client/login", json=wrong, headers=ATTACKER)).status_code == 401
    right = {"username": "ana", "password": PASSWORD, "captcha_token": GOOD_TOKEN}
    assert_too_many(await client.post("/api/client/login", json=right, headers=ATTACKER))
    # Beto, from elsewhere, logs in as always; a wide password spray from one address meets the captcha (without a
    # captcha configured it waits: test_login_throttle.py).
    beto = await client.post("/api/client/login", json={"username": "beto", "password": PASSWORD}, headers=SOMEONE_ELSE)
    assert beto.status_code == 200
    for n in range(3):
        spray = {"username": f"nadie{n}", "password": "x"}
        assert (await client.post("/api/client/login", json=spray, headers=ATTACKER)).status_code in {401, 429}
    sprayed = await client.post("/api/client/login", json={"username": "zz", "password": "x"}, headers=ATTACKER)
    assert sprayed.status_code == 422 and sprayed.json()["code"] == "captcha_required"


async def test_recovery_flood_is_capped_per_account_and_address(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana", email="ana@example.org")
    for _ in range(2):
        answer = await client.post("/api/client/password-recovery", json={"username": "ana"}, headers=SOMEONE_ELSE)
        assert answer.status_code == 200
    assert_too_many(await client.post("/api/client/password-recovery", json={"username": "ana"}, headers=ATTACKER))
    for n in range(3):
        await client.post("/api/client/password-recovery", json={"username": f"x{n}"}, headers=ATTACKER)
    assert_too_many(await client.post("/api/client/password-recovery", json={"username": "y"}, headers=ATTACKER))


async def test_reset_and_verification_links_cannot_be_guessed_in_bulk(client: AsyncTestClient[Any]) -> None:
    for n in range(5):
        answer = await client.post(
            "/api/client/password-reset", json={"token": f"guess{n}" * 6, "password": PASSWORD}, headers=ATTACKER
        )
        assert answer.status_code == 400
    assert_too_many(await client.post("/api/client/verify-email", json={"token": "g" * 43}, headers=ATTACKER))
    assert_too_many(await client.post("/api/refresh-token", json={"refresh": "g" * 43}, headers=ATTACKER))
    other = await client.post("/api/client/verify-email", json={"token": "g" * 43}, headers=SOMEONE_ELSE)
    assert other.status_code == 400


async def test_registration_flood_from_one_address(client: AsyncTestClient[Any]) -> None:
    def new(n: int) -> dict[str, str]:
        return {"username": f"bot{n}", "password": PASSWORD, "captcha_token": GOOD_TOKEN}

    for n in range(3):
        assert (await client.put("/api/client/register", json=new(n), headers=ATTACKER)).status_code == 201
    assert_too_many(await client.put("/api/client/register", json=new(99), headers=ATTACKER))
    assert (await client.put("/api/client/register", json=new(100), headers=SOMEONE_ELSE)).status_code == 201
    login_of_bot = await client.post("/api/client/login", json={"username": "bot99", "password": PASSWORD})
    assert login_of_bot.status_code == 401  # the refused registration left no account behind


async def test_mirror_link_scraping_is_refused_and_real_links_keep_working(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    owner = await make_user(services, "ana")
    peer = await make_peer(services, owner, "movil", await make_server(services))
    link = services.peers.mirror_link(peer).split("testserver.local", 1)[1]
    for n in range(5):
        assert (await client.get(f"/mirror/adivina{n:040d}", headers=ATTACKER)).status_code == 404
    guess = await client.get(f"/mirror/adivina{99:040d}", headers=ATTACKER)
    assert_too_many(guess)
    # Even a right guess is refused now: the scraper cannot tell a hit from a miss.
    assert_too_many(await client.get(link, headers=ATTACKER))
    assert (await client.get(link, headers=SOMEONE_ELSE)).status_code == 200
    # One token polled too often (a broken client) is slowed down on its own.
    for _ in range(4):
        assert (await client.get(link, headers=SOMEONE_ELSE)).status_code == 200
    assert_too_many(await client.get(link, headers=SOMEONE_ELSE))


async def test_a_stranger_polling_a_bound_link_does_not_spend_the_owners_fetches(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """Every fetch of a token counted against one budget: a stranger holding a leaked link, refused as another
    device, made the owner's own device wait (429)."""
    owner = await make_user(services, "ana")
    peer = await make_peer(services, owner, "movil", await make_server(services))
    link = services.peers.mirror_link(peer).split("testserver.local", 1)[1]
    headers = bearer(await login(client, "ana"))
    operate = f"/api/client/accounts/peers/{peer.id}"
    assert (
        await client.patch(operate, json={"operation": "mirror_binding", "enabled": True}, headers=headers)
    ).is_success
    mine = {**SOMEONE_ELSE, "X-Device-Id": "telefono-de-ana-0001"}
    code = (await client.get(link, headers=mine)).json()["device_code"]
    confirmed = await client.patch(operate, json={"operation": "confirm_mirror_device", "code": code}, headers=headers)
    assert confirmed.status_code == 200, confirmed.text
    assert (await client.get(link, headers=mine)).status_code == 200
    stranger = {**ATTACKER, "X-Device-Id": "telefono-ajeno-0002"}
    answers = [(await client.get(link, headers=stranger)).status_code for _ in range(8)]
    # The others' own budget, of which the owner's device spent one while it waited for its code to be confirmed.
    assert answers == [409] * 4 + [429] * 4
    for _ in range(4):  # the owner's device still has its own: 5 a minute here, one spent on binding
        assert (await client.get(link, headers=mine)).status_code == 200


@pytest.mark.parametrize(
    ("path", "method"), [("/api/client/login", "POST"), ("/api/client/register", "PUT"), ("/api/logout", "POST")]
)
async def test_oversized_bodies_are_refused_before_reading_them(
    client: AsyncTestClient[Any], path: str, method: str
) -> None:
    huge = b'{"username": "' + b"a" * 10_000 + b'"}'
    answer = await client.request(method, path, content=huge, headers={"content-type": "application/json"})
    assert answer.status_code == 413
    assert answer.json() == {"message": "La solicitud es demasiado grande.", "code": "payload_too_large"}

    # No Content-Length, the body streamed in chunks: the limit holds while reading too (raw ASGI, since the
    # test client always sends a length).
    status, body = await _streamed(client, method, path, [b"a" * 1000] * 10)
    assert status == 413
    assert b"demasiado grande" in body
    assert (await client.get("/api/client/status")).status_code == 200


async def _streamed(client: AsyncTestClient[Any], method: str, path: str, chunks: list[bytes]) -> tuple[int, bytes]:
    pending = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver.local"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver.local", 80),
        "state": {},
    }
    await client.app(scope, receive, send)  # type: ignore[arg-type]
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


async def test_socket_flood_from_one_address(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ana")
    await make_user(services, "beto")
    token = (await login(client, "ana"))["access"]
    other = (await login(client, "beto"))["access"]
    with TestClient(app=create_app(services=services)) as sync_client:
        opened = []
        for _ in range(3):
            socket = sync_client.websocket_connect(f"/ws?token={token}", headers=ATTACKER).__enter__()
            assert socket.receive_json()["type"] == "auth"
            opened.append(socket)
        with sync_client.websocket_connect(f"/ws?token={token}", headers=ATTACKER) as fourth:
            assert fourth.receive_json() == {"type": "error", "message": live.TOO_MANY_CONNECTIONS}
            with pytest.raises(WebSocketDisconnect) as closed:
                fourth.receive_json()
            assert closed.value.code == live.TOO_MANY_CLOSE
        # Someone else connects as usual meanwhile.
        with sync_client.websocket_connect(f"/ws?token={other}", headers=SOMEONE_ELSE) as fine:
            assert fine.receive_json() == {"type": "auth", "data": {"username": "beto"}}
        # A socket that floods messages is closed with a message; the others stay open.
        flooding = opened[0]
        for _ in range(5):
            flooding.send_text('{"type":"ping"}')
            assert flooding.receive_json() == {"type": "pong"}
        flooding.send_text('{"type":"ping"}')
        assert flooding.receive_json() == {"type": "error", "message": live.TOO_MANY_MESSAGES}
        opened[1].send_text('{"type":"ping"}')
        assert opened[1].receive_json() == {"type": "pong"}
        for socket in opened:
            socket.__exit__(None, None, None)
    assert services.socket_slots.held_here() == 0  # every slot was given back
