"""Helping customers from the manager: search, block and unblock, reset links, a user's peers."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import AsyncTestClient, TestClient

from controlplane.app import create_app
from controlplane.realtime.hub import SESSION_INVALID, UNAUTHORIZED_CLOSE
from controlplane.services import Services
from tests.api.factories import PASSWORD, bearer, login, make_user
from tests.api.manager.world import audit_count, build_world, last_audit
from tests.fakes.smtp import FakeSMTP, link_in


async def test_search_finds_by_username_or_email_with_pages(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    for n in range(3):
        await make_user(services, f"carla{n}", email=f"c{n}@correo.test")
    answer = await client.get("/api/admin/users", params={"q": "CORREO.test", "page_size": 2}, headers=world.support)
    assert answer.status_code == 200
    body = answer.json()
    assert body["total"] == 3 and body["page"] == 1 and len(body["items"]) == 2
    second = await client.get(
        "/api/admin/users", params={"q": "correo", "page_size": 2, "page": 2}, headers=world.support
    )
    names = {u["username"] for u in body["items"]} | {u["username"] for u in second.json()["items"]}
    assert names == {"carla0", "carla1", "carla2"}
    by_name = (await client.get("/api/admin/users", params={"q": "ana"}, headers=world.support)).json()
    assert [u["username"] for u in by_name["items"]] == ["ana"] and by_name["items"][0]["peers"] == 1


async def test_user_detail_lists_their_peers(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    detail = (await client.get(f"/api/admin/users/{world.ids['user']}", headers=world.support)).json()
    assert detail["user"]["username"] == "ana" and detail["user"]["email"] == "ana@example.test"
    [peer] = detail["peers"]
    assert peer["name"] == "movil" and peer["server_name"] == "Miami 1" and peer["username"] == "ana"
    assert "private_key" not in str(peer) and "mirror" not in str(peer)


async def test_blocked_customer_is_logged_out_and_cannot_log_in(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    assert (await client.get("/api/client/accounts/peers", headers=world.customer)).status_code == 200
    refresh_token = (await login(client, "ana"))["refresh"]
    answer = await client.patch(f"/api/admin/users/{world.ids['user']}", json={"blocked": True}, headers=world.support)
    assert answer.status_code == 200 and answer.json()["blocked"] is True
    # The session ended, and says why: the web client shows it on the login page (docs/webui.md).
    ended = await client.get("/api/client/accounts/peers", headers=world.customer)
    assert ended.status_code == 403 and ended.json()["message"] == "Su cuenta está bloqueada."
    refresh = await client.post("/api/refresh-token", json={"refresh": refresh_token})
    assert refresh.status_code == 403 and refresh.json()["message"] == "Su cuenta está bloqueada."
    attempt = await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD, "remember": False})
    assert attempt.status_code == 403 and attempt.json()["code"] == "account_blocked"
    entry = await last_audit(services)
    assert entry.action == "user.block" and entry.target_id == world.ids["user"]

    await client.patch(f"/api/admin/users/{world.ids['user']}", json={"blocked": False}, headers=world.support)
    attempt = await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD, "remember": False})
    assert attempt.status_code == 200
    assert (await last_audit(services)).action == "user.unblock"


async def test_blocking_closes_the_customers_open_sockets_as_an_ended_session(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    ana = world.customer["Authorization"].removeprefix("Bearer ")
    beto = bearer(await login(client, "beto"))["Authorization"].removeprefix("Bearer ")
    with TestClient(app=create_app(services=services)) as sync_client:
        with (
            sync_client.websocket_connect(f"/ws?token={ana}") as phone,
            sync_client.websocket_connect(f"/ws?token={ana}") as laptop,
            sync_client.websocket_connect(f"/ws?token={beto}") as someone_else,
        ):
            for socket in (phone, laptop, someone_else):
                assert socket.receive_json()["type"] == "auth"
            answer = sync_client.patch(
                f"/api/admin/users/{world.ids['user']}", json={"blocked": True}, headers=world.support
            )
            assert answer.status_code == 200, answer.text
            # What a bad token gets at the handshake: the web client then checks its session and goes to /login.
            for socket in (phone, laptop):
                assert socket.receive_json() == {"type": "auth", "message": SESSION_INVALID}
                with pytest.raises(WebSocketDisconnect) as closed:
                    socket.receive_json()
                assert closed.value.code == UNAUTHORIZED_CLOSE
            someone_else.send_text('{"type":"ping"}')
            assert someone_else.receive_json() == {"type": "pong"}
        # Reconnecting with the old token is refused the same way.
        with sync_client.websocket_connect(f"/ws?token={ana}") as again:
            assert again.receive_json() == {"type": "auth", "message": SESSION_INVALID}
            with pytest.raises(WebSocketDisconnect) as closed:
                again.receive_json()
            assert closed.value.code == UNAUTHORIZED_CLOSE
    assert not services.hub.is_online(world.ids["user"])
    assert services.socket_slots.held_here() == 0


async def test_unblocking_closes_nothing(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    ana = world.customer["Authorization"].removeprefix("Bearer ")
    with TestClient(app=create_app(services=services)) as sync_client:
        with sync_client.websocket_connect(f"/ws?token={ana}") as socket:
            assert socket.receive_json()["type"] == "auth"
            answer = sync_client.patch(
                f"/api/admin/users/{world.ids['user']}", json={"blocked": False}, headers=world.support
            )
            assert answer.status_code == 200, answer.text
            socket.send_text('{"type":"ping"}')
            assert socket.receive_json() == {"type": "pong"}


async def test_staff_accounts_cannot_be_blocked_here(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    staff = (await client.get("/api/admin/users", params={"q": "jefa"}, headers=world.admin)).json()["items"][0]
    before = await audit_count(services)
    answer = await client.patch(f"/api/admin/users/{staff['id']}", json={"blocked": True}, headers=world.support)
    assert answer.status_code == 403 and answer.json()["code"] == "staff_account"
    assert await audit_count(services) == before


async def test_password_reset_link_reaches_the_customer_and_works(
    services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP
) -> None:
    world = await build_world(services, client)
    answer = await client.post(f"/api/admin/users/{world.ids['user']}/password-reset", headers=world.support)
    assert answer.status_code == 200
    assert answer.json()["message"] == "Enlace para restablecer la contraseña enviado a ana@example.test."
    token = link_in(smtp.wait_for("ana@example.test"), "/password-reset")
    reset = await client.post("/api/client/password-reset", json={"token": token, "password": "otra-clave-larga"})
    assert reset.status_code == 200
    entry = await last_audit(services)
    assert entry.action == "user.password_reset" and token not in entry.summary


async def test_password_reset_needs_a_verified_email(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    before = await audit_count(services)
    answer = await client.post(f"/api/admin/users/{world.ids['unverified']}/password-reset", headers=world.support)
    assert answer.status_code == 409
    assert answer.json() == {"message": "El usuario no tiene un email verificado.", "code": "no_verified_email"}
    assert await audit_count(services) == before


async def test_unknown_user_and_bad_filters(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    missing = await client.get("/api/admin/users/nope", headers=world.admin)
    assert missing.status_code == 404 and missing.json()["message"] == "Usuario no encontrado."
    bad_page = await client.get("/api/admin/users", params={"page": 0}, headers=world.admin)
    assert bad_page.status_code == 422 and bad_page.json()["code"] == "invalid"
    bad_body = await client.patch(f"/api/admin/users/{world.ids['user']}", json={"blocked": "si"}, headers=world.admin)
    assert bad_body.status_code == 422
    assert bad_body.json()["fields"] == {"blocked": "Debe ser verdadero o falso."}


async def test_an_admin_deletes_a_customer_and_the_account_keeps_its_invoices(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    user_id = world.ids["user"]
    refused = await client.delete(f"/api/admin/users/{user_id}", headers=world.support)
    assert refused.status_code == 403 and refused.json()["code"] == "admin_only", refused.text
    before = await audit_count(services)
    answer = await client.delete(f"/api/admin/users/{user_id}", headers=world.admin)
    assert answer.status_code == 200, answer.text
    row = answer.json()
    assert row["deleted"] is True and row["username"].startswith("#eliminado-") and row["email"] is None
    entry = await last_audit(services)
    assert await audit_count(services) == before + 1
    assert (entry.action, entry.target_id, entry.summary) == (
        "user.delete",
        user_id,
        "Cuenta ana eliminada; peers y sesiones cerrados",
    )
    # The customer's session ended; the account stays listed (its invoices point at it), without peers.
    assert (await client.get("/api/client/settings", headers=world.customer)).status_code == 401
    detail = (await client.get(f"/api/admin/users/{user_id}", headers=world.support)).json()
    assert detail["user"]["deleted"] is True and detail["peers"] == []
    invoices = (await client.get("/api/admin/invoices", params={"user": user_id}, headers=world.support)).json()
    assert invoices["total"] == 1
    again = await client.delete(f"/api/admin/users/{user_id}", headers=world.admin)
    assert again.status_code == 409 and again.json()["message"] == "La cuenta ya fue eliminada."
    block = await client.patch(f"/api/admin/users/{user_id}", json={"blocked": False}, headers=world.admin)
    assert block.status_code == 409 and block.json()["code"] == "account_deleted"


async def test_staff_accounts_and_unknown_ids_are_not_deleted(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    staff = (await client.get("/api/admin/users", params={"role": "support"}, headers=world.admin)).json()["items"]
    refused = await client.delete(f"/api/admin/users/{staff[0]['id']}", headers=world.admin)
    assert refused.status_code == 403
    assert refused.json()["message"] == "Las cuentas del personal no se eliminan desde aquí."
    missing = await client.delete("/api/admin/users/no-existe", headers=world.admin)
    assert missing.status_code == 404 and missing.json()["message"] == "Usuario no encontrado."


async def test_nothing_staff_do_brings_a_deleted_account_back(services: Services, client: AsyncTestClient[Any]) -> None:
    """The review created a peer for `#eliminado-...`: every staff action on a deleted account answers 409
    `account_deleted` and makes nothing."""
    world = await build_world(services, client)
    user_id = world.ids["user"]
    row = (await client.delete(f"/api/admin/users/{user_id}", headers=world.admin)).json()
    refusals = [
        await client.post(
            "/api/admin/peers", json={"username": row["username"], "name": "revivido"}, headers=world.admin
        ),
        await client.post(
            "/api/admin/peers", json={"username": row["username"], "name": "revivido", "days": 30}, headers=world.admin
        ),
        await client.post(f"/api/admin/users/{user_id}/password-reset", json={}, headers=world.admin),
        await client.post(f"/api/admin/users/{user_id}/verification", json={}, headers=world.admin),
        await client.patch(f"/api/admin/users/{user_id}", json={"blocked": True}, headers=world.admin),
        await client.patch(f"/api/admin/users/{user_id}", json={"blocked": False}, headers=world.support),
    ]
    for refused in refusals:
        assert refused.status_code == 409, refused.text
        assert refused.json() == {"message": "La cuenta fue eliminada.", "code": "account_deleted"}
    detail = (await client.get(f"/api/admin/users/{user_id}", headers=world.support)).json()
    assert detail["peers"] == [] and detail["user"]["deleted"] is True and detail["user"]["blocked"] is False
