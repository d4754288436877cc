"""Every way a session ends closes that session's open sockets (4401), and only that session's: logout (with the
refresh token, or with only the access token), refresh-token reuse, password reset, password change (the caller's
own session goes on) and the expiry of the token a socket was opened with. Blocking: tests/api/manager/test_users.py;
across two processes: tests/multiprocess/test_sockets.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import AsyncTestClient, TestClient
from litestar.testing.websocket_test_session import WebSocketTestSession

from controlplane.app import create_app
from controlplane.realtime.hub import SESSION_EXPIRED, SESSION_INVALID, UNAUTHORIZED_CLOSE
from controlplane.services import Services
from tests.api.factories import PASSWORD, bearer, make_user
from tests.fakes.smtp import FakeSMTP, link_in

NEW_PASSWORD = "otra-clave-segura-2"


@pytest.fixture
def sync_client(services: Services) -> Iterator[TestClient[Any]]:
    """Sockets need the synchronous test client; it serves the same services as `client`."""
    with TestClient(app=create_app(services=services)) as http:
        yield http


def _login(http: TestClient[Any], username: str = "ana", password: str = PASSWORD) -> dict[str, str]:
    answer = http.post("/api/client/login", json={"username": username, "password": password, "remember": True})
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def _greeted(socket: WebSocketTestSession) -> WebSocketTestSession:
    assert socket.receive_json(timeout=30)["type"] == "auth"
    return socket


def _assert_closed(socket: WebSocketTestSession, message: str = SESSION_INVALID) -> None:
    assert socket.receive_json(timeout=30) == {"type": "auth", "message": message}
    with pytest.raises(WebSocketDisconnect) as closed:
        socket.receive_json(timeout=30)
    assert closed.value.code == UNAUTHORIZED_CLOSE


def _assert_open(socket: WebSocketTestSession) -> None:
    socket.send_text('{"type":"ping"}')
    assert socket.receive_json(timeout=30) == {"type": "pong"}


async def test_logout_closes_that_sessions_sockets_and_no_other(
    services: Services, sync_client: TestClient[Any]
) -> None:
    await make_user(services, "ana")
    leaving, staying = _login(sync_client), _login(sync_client)
    with (
        sync_client.websocket_connect(f"/ws?token={leaving['access']}") as phone,
        sync_client.websocket_connect(f"/ws?token={leaving['access']}") as tablet,
        sync_client.websocket_connect(f"/ws?token={staying['access']}") as laptop,
    ):
        for socket in (phone, tablet, laptop):
            _greeted(socket)
        assert sync_client.post("/api/logout", json={"refresh": leaving["refresh"]}).status_code == 200
        _assert_closed(phone)
        _assert_closed(tablet)
        _assert_open(laptop)


async def test_logout_with_only_the_access_token_ends_that_session(
    services: Services, sync_client: TestClient[Any]
) -> None:
    """What the web client sends after a reload without 'Recordarme': no refresh token in hand, only the access."""
    await make_user(services, "ana")
    tokens = _login(sync_client)
    with sync_client.websocket_connect(f"/ws?token={tokens['access']}") as socket:
        _greeted(socket)
        answer = sync_client.post("/api/logout", headers=bearer(tokens))
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"success": True, "message": "Sesión cerrada."}
        _assert_closed(socket)
    assert sync_client.get("/api/client/settings", headers=bearer(tokens)).status_code == 401
    refused = sync_client.post("/api/refresh-token", json={"refresh": tokens["refresh"]})
    assert refused.status_code == 401
    assert refused.json()["code"] == "session_ended"


async def test_logout_with_a_token_that_names_no_session_ends_nothing(
    services: Services, sync_client: TestClient[Any]
) -> None:
    await make_user(services, "ana")
    tokens = _login(sync_client)
    forged = jwt.encode({"sid": tokens["refresh"].split(".")[0], "aud": "client"}, "otra-clave", algorithm="HS256")
    answer = sync_client.post("/api/logout", headers={"Authorization": f"Bearer {forged}"})
    assert answer.status_code == 200
    assert sync_client.get("/api/client/settings", headers=bearer(tokens)).status_code == 200


async def test_a_reused_refresh_token_closes_the_sessions_sockets(
    services: Services, sync_client: TestClient[Any]
) -> None:
    await make_user(services, "ana")
    tokens = _login(sync_client)
    renewed = sync_client.post("/api/refresh-token", json={"refresh": tokens["refresh"]}).json()
    with sync_client.websocket_connect(f"/ws?token={renewed['access']}") as socket:
        _greeted(socket)
        stolen = sync_client.post("/api/refresh-token", json={"refresh": tokens["refresh"]})
        assert stolen.status_code == 401
        assert stolen.json()["code"] == "refresh_reused"
        _assert_closed(socket)


async def test_a_password_reset_closes_every_socket_of_the_account(
    services: Services, sync_client: TestClient[Any], smtp: FakeSMTP
) -> None:
    await make_user(services, "ana", email="ana@example.org")
    await make_user(services, "beto")
    first, second, other = _login(sync_client), _login(sync_client), _login(sync_client, "beto")
    with (
        sync_client.websocket_connect(f"/ws?token={first['access']}") as phone,
        sync_client.websocket_connect(f"/ws?token={second['access']}") as laptop,
        sync_client.websocket_connect(f"/ws?token={other['access']}") as someone_else,
    ):
        for socket in (phone, laptop, someone_else):
            _greeted(socket)
        sync_client.post("/api/client/password-recovery", json={"username": "ana"})
        token = link_in(smtp.wait_for("ana@example.org"), "/password-reset")
        answer = sync_client.post("/api/client/password-reset", json={"token": token, "password": NEW_PASSWORD})
        assert answer.status_code == 200, answer.text
        _assert_closed(phone)
        _assert_closed(laptop)
        _assert_open(someone_else)


async def test_a_password_change_ends_the_other_sessions_and_keeps_the_callers(
    services: Services, sync_client: TestClient[Any], client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    mine, stolen = _login(sync_client), _login(sync_client)
    with (
        sync_client.websocket_connect(f"/ws?token={mine['access']}") as own,
        sync_client.websocket_connect(f"/ws?token={stolen['access']}") as intruder,
    ):
        _greeted(own)
        _greeted(intruder)
        changed = sync_client.patch(
            "/api/client/settings",
            json={"old_password": PASSWORD, "new_password": NEW_PASSWORD},
            headers=bearer(mine),
        )
        assert changed.status_code == 200, changed.text
        _assert_closed(intruder)
        _assert_open(own)
    # The other session cannot come back; the caller's goes on, and so does its renewal.
    assert sync_client.get("/api/client/settings", headers=bearer(stolen)).status_code == 401
    assert sync_client.post("/api/refresh-token", json={"refresh": stolen["refresh"]}).status_code == 401
    assert sync_client.get("/api/client/settings", headers=bearer(mine)).status_code == 200
    assert sync_client.post("/api/refresh-token", json={"refresh": mine["refresh"]}).status_code == 200


async def test_a_wrong_old_password_ends_no_session(services: Services, sync_client: TestClient[Any]) -> None:
    await make_user(services, "ana")
    mine, other = _login(sync_client), _login(sync_client)
    refused = sync_client.patch(
        "/api/client/settings", json={"old_password": "no-es-esta", "new_password": NEW_PASSWORD}, headers=bearer(mine)
    )
    assert refused.json()["code"] == "wrong_password", refused.text
    assert sync_client.get("/api/client/settings", headers=bearer(other)).status_code == 200


async def test_a_socket_is_closed_when_the_token_it_was_opened_with_expires(
    services: Services, sync_client: TestClient[Any]
) -> None:
    await make_user(services, "ana")
    tokens = _login(sync_client)
    claims = jwt.decode(tokens["access"], options={"verify_signature": False})
    # The same session, with a token that expires in ten seconds (access tokens last minutes): time enough to
    # connect, be greeted and ping on a loaded machine; the close then comes within _assert_closed's 30 s.
    claims["exp"] = int(time.time()) + 10
    short = jwt.encode(claims, services.box.signing_key, algorithm="HS256")
    with sync_client.websocket_connect(f"/ws?token={short}") as socket:
        _greeted(socket)
        _assert_open(socket)
        _assert_closed(socket, SESSION_EXPIRED)
    # The session itself goes on: a token renewed from it opens a socket again.
    renewed = sync_client.post("/api/refresh-token", json={"refresh": tokens["refresh"]}).json()
    with sync_client.websocket_connect(f"/ws?token={renewed['access']}") as again:
        _assert_open(_greeted(again))
