"""The /ws handshake: token checked, Origin checked, the auth message first, pushes delivered."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import AsyncTestClient, TestClient

from controlplane.app import create_app
from controlplane.realtime.hub import Push
from controlplane.services import Services
from tests.api.factories import login, make_user


async def test_socket_greets_the_user_and_delivers_pushes(services: Services, client: AsyncTestClient[Any]) -> None:
    user = await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    with TestClient(app=create_app(services=services)) as sync_client:
        with sync_client.websocket_connect(f"/ws?token={token}") as socket:
            assert socket.receive_json() == {"type": "auth", "data": {"username": "ana"}}
            sync_client.blocking_portal.call(services.hub.push, user.id, Push("success", "Listo"))
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


async def test_a_foreign_origin_is_refused(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    with TestClient(app=create_app(services=services)) as sync_client:
        with pytest.raises(WebSocketDisconnect) as closed:
            with sync_client.websocket_connect(f"/ws?token={token}", headers={"Origin": "https://evil.example"}) as s:
                s.receive_json()
        assert closed.value.code == 4403
