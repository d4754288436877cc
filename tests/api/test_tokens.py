"""Access tokens, rotating refresh tokens, reuse detection and logout."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import jwt
from litestar.testing import AsyncTestClient

from controlplane.services import Services
from tests.api.factories import bearer, login, make_user


async def test_refresh_rotates_tokens(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ana")
    first = await login(client, "ana")
    answer = await client.post("/api/refresh-token", json={"refresh": first["refresh"]})
    assert answer.status_code == 200
    second = answer.json()
    assert set(second) == {"access", "refresh"}
    assert second["refresh"] != first["refresh"]
    assert (await client.get("/api/client/settings", headers=bearer(second))).status_code == 200


async def test_a_refresh_token_used_twice_revokes_its_whole_family(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    stolen = await login(client, "ana")
    rotated = (await client.post("/api/refresh-token", json={"refresh": stolen["refresh"]})).json()

    replay = await client.post("/api/refresh-token", json={"refresh": stolen["refresh"]})
    assert replay.status_code == 401
    assert replay.json()["code"] == "refresh_reused"
    # The legitimate holder's newer tokens are dead too: the thief and the owner both must log in again.
    assert (await client.post("/api/refresh-token", json={"refresh": rotated["refresh"]})).status_code == 401
    assert (await client.get("/api/client/settings", headers=bearer(rotated))).status_code == 401
    # Another login of the same user is a different family and keeps working.
    other = await login(client, "ana")
    assert (await client.get("/api/client/settings", headers=bearer(other))).status_code == 200


async def test_logout_revokes_the_session(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ana")
    tokens = await login(client, "ana")
    answer = await client.post("/api/logout", json={"refresh": tokens["refresh"]})
    assert answer.status_code == 200
    assert (await client.get("/api/client/settings", headers=bearer(tokens))).status_code == 401
    assert (await client.post("/api/refresh-token", json={"refresh": tokens["refresh"]})).status_code == 401


async def test_logout_with_an_unknown_token_still_succeeds(client: AsyncTestClient[Any]) -> None:
    assert (await client.post("/api/logout", json={"refresh": "nada.nada"})).status_code == 200


async def test_expired_and_forged_access_tokens_are_refused(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ana")
    tokens = await login(client, "ana")
    claims = jwt.decode(tokens["access"], options={"verify_signature": False})

    expired = jwt.encode({**claims, "exp": int(time.time()) - 5}, services.box.signing_key, algorithm="HS256")
    answer = await client.get("/api/client/settings", headers={"Authorization": f"Bearer {expired}"})
    assert answer.status_code == 401
    assert answer.json()["code"] == "token_expired"

    forged = jwt.encode({**claims, "exp": int(time.time()) + 600}, b"x" * 32, algorithm="HS256")
    answer = await client.get("/api/client/settings", headers={"Authorization": f"Bearer {forged}"})
    assert answer.status_code == 401
    assert answer.json()["code"] == "invalid_token"

    answer = await client.get("/api/client/settings")
    assert answer.status_code == 401
    assert answer.json()["message"] == "Debe iniciar sesión."


async def test_refresh_with_garbage_is_refused(client: AsyncTestClient[Any]) -> None:
    answer = await client.post("/api/refresh-token", json={"refresh": "garbage"})
    assert answer.status_code == 401
    assert answer.json()["code"] == "invalid_refresh"
    answer = await client.post("/api/refresh-token", json={})
    assert answer.status_code == 422
    assert answer.json()["message"] == "Token de renovación: campo obligatorio."


async def test_a_token_in_use_stops_working_at_once_after_logout(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    tokens = await login(client, "ana")
    other = await login(client, "ana")
    # Checked once, so this process remembers the token as good: the logout must undo that before it answers.
    assert (await client.get("/api/client/accounts/peers", headers=bearer(tokens))).status_code == 200
    assert (await client.get("/api/client/accounts/peers", headers=bearer(other))).status_code == 200
    assert (await client.post("/api/logout", json={"refresh": tokens["refresh"]})).status_code == 200
    answer = await client.get("/api/client/accounts/peers", headers=bearer(tokens))
    assert answer.status_code == 401 and answer.json()["code"] == "session_ended"
    # Only that session ended: the same user's other login keeps working.
    assert (await client.get("/api/client/accounts/peers", headers=bearer(other))).status_code == 200


async def test_a_token_in_use_stops_working_at_once_when_its_refresh_token_is_replayed(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    stolen = await login(client, "ana")
    rotated = (await client.post("/api/refresh-token", json={"refresh": stolen["refresh"]})).json()
    assert (await client.get("/api/client/settings", headers=bearer(rotated))).status_code == 200
    replay = await client.post("/api/refresh-token", json={"refresh": stolen["refresh"]})
    assert replay.status_code == 401 and replay.json()["code"] == "refresh_reused"
    assert (await client.get("/api/client/settings", headers=bearer(rotated))).status_code == 401


async def test_a_checked_token_still_expires_on_time(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ana")
    tokens = await login(client, "ana")
    claims = jwt.decode(tokens["access"], options={"verify_signature": False})
    # Ten seconds: the first request must land before the expiry even on a loaded machine; the test waits it out.
    short = jwt.encode({**claims, "exp": int(time.time()) + 10}, services.box.signing_key, algorithm="HS256")
    headers = {"Authorization": f"Bearer {short}"}
    assert (await client.get("/api/client/settings", headers=headers)).status_code == 200
    while time.time() < int(jwt.decode(short, options={"verify_signature": False})["exp"]):
        await asyncio.sleep(0.2)
    answer = await client.get("/api/client/settings", headers=headers)
    assert answer.status_code == 401 and answer.json()["code"] == "token_expired"
