"""The /ws handshake: token checked, Origin checked, the auth message first, pushes delivered."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import AsyncTestClient, TestClient

from controlplane.app import create_app
from controlplane.realtime.messages import SuccessPush
from controlplane.services import Services
from controlplane.settings import default_origins
from tests.api.factories import login, make_user


async def test_socket_greets_the_user_and_delivers_pushes(services: Services, client: AsyncTestClient[Any]) -> None:
    user = await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    with TestClient(app=create_app(services=services)) as sync_client:
        with sync_client.websocket_connect(f"/ws?token={token}") as socket:
            assert socket.receive_json() == {"type": "auth", "data": {"username": "ana"}}
            sync_client.blocking_portal.call(services.hub.push, user.id, SuccessPush(message="Listo"))
            assert socket.receive_json() == {"type": "success", "message": "Listo"}
            socket.send_text('{"type":"ping"}')
            assert socket.receive_json() == {"type": "pong"}


async def test_a_bad_token_is_told_and_closed(services: Services) -> None:
    with TestClient(app=create_app(services=services)) as sync_client:
        with sync_client.websocket_connect("/ws?token=nope") as socket:
            assert socket.receive_json() == {"type": "auth", "message": "Sesión inválida o expirada."}
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
            assert closed.value.code == 4401


def _refusal(sync_client: TestClient[Any], origin: str, token: str) -> WebSocketDisconnect:
    with sync_client.websocket_connect(f"/ws?token={token}", headers={"Origin": origin}) as socket:
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    return closed.value


async def test_a_foreign_origin_is_refused_with_the_address_to_open_and_logged_once(
    services: Services, client: AsyncTestClient[Any], caplog: pytest.LogCaptureFixture
) -> None:
    await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    caplog.set_level(logging.WARNING, logger="controlplane.realtime.origins")
    with TestClient(app=create_app(services=services)) as sync_client:
        # Not a bare 403: the page learns the code and which address works (docs/api.md, live push).
        first = _refusal(sync_client, "https://evil-once.example", token)
        assert (first.code, first.detail) == (4403, "http://testserver.local")
        assert _refusal(sync_client, "https://evil-once.example", token).code == 4403
        assert _refusal(sync_client, "http://other-once.example:8000", token).code == 4403
    lines = [r.getMessage() for r in caplog.records if r.name == "controlplane.realtime.origins"]
    assert len(lines) == 2, lines
    assert "'https://evil-once.example'" in lines[0] and "expected" in lines[0]
    assert "'http://other-once.example:8000'" in lines[1]
    assert token not in caplog.text


@pytest.fixture
def settings_overrides(request: pytest.FixtureRequest) -> dict[str, Any]:
    return getattr(request, "param", {})


@pytest.mark.parametrize(
    "settings_overrides",
    [{"client_url": "http://127.0.0.1:8123", "allowed_origins": default_origins("http://127.0.0.1:8123")}],
    indirect=True,
)
async def test_a_loopback_client_url_accepts_localhost_and_127_0_0_1(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    with TestClient(app=create_app(services=services)) as sync_client:
        for origin in ("http://127.0.0.1:8123", "http://localhost:8123"):
            with sync_client.websocket_connect(f"/ws?token={token}", headers={"Origin": origin}) as socket:
                assert socket.receive_json() == {"type": "auth", "data": {"username": "ana"}}
        assert _refusal(sync_client, "http://localhost:9999", token).code == 4403
