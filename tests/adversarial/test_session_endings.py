"""Every way a session ends, against open sockets of the real control plane (the suite's subprocess): logout with the
refresh token or with only the access token, a refresh token presented twice, a password reset through the mailed
link, a password change, a block by an admin, the account deleted by its owner or by an admin. The ended session's
socket (`/ws?token=...`) hears "Sesión inválida o expirada." and closes with 4401 and its token answers 401; the
sockets of sessions that did not end (the caller's own on a password change, the account's other session when only
one session ends, another customer's always) stay open (docs/security.md, "Sessions: every way one ends closes its
sockets"). Each case has customers of its own, registered from loopback addresses of their own (10 registrations
an hour per address)."""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import json
import random
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from controlplane.settings import Settings
from tests.adversarial.conftest import Deployment
from tests.api.factories import PASSWORD

UNAUTHORIZED_CLOSE = 4401
ENDED = "Sesión inválida o expirada."
NEW_PASSWORD = "otra-clave-segura-2"
WAIT = 30  # seconds; the suite shares two cores with other layers


@dataclass
class Account:
    username: str
    address: str  # the loopback address it registers and logs in from, as a customer comes from theirs
    deployment: Deployment

    @property
    def email(self) -> str:
        return f"{self.username}@example.test"

    def http(self) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(local_address=self.address)
        return httpx.AsyncClient(base_url=self.deployment.url, timeout=WAIT * 2, transport=transport)

    async def log_in(self, password: str = PASSWORD) -> dict[str, str]:
        async with self.http() as http:
            answer = await http.post(
                "/api/client/login", json={"username": self.username, "password": password, "remember": True}
            )
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]


async def new_account(deployment: Deployment, *, with_email: bool = False) -> Account:
    address = "127." + ".".join(str(random.randrange(2, 250)) for _ in range(3))
    account = Account(f"fin{uuid.uuid4().hex[:10]}", address, deployment)
    body = {"username": account.username, "password": PASSWORD}
    if with_email:
        body["email"] = account.email
    async with account.http() as http:
        answer = await http.put("/api/client/register", json=body)
    assert answer.status_code == 201, answer.text
    return account


def _outbox(deployment: Deployment) -> Path:
    """Without an SMTP server the process writes each mail to this folder (controlplane/mail.py)."""
    settings = Settings.from_env(deployment.process.env)
    assert not settings.smtp_url, "the suite reads mail from the process's outbox folder"
    return settings.secret_key_file.parent / "outbox"


async def mailed_token(deployment: Deployment, address: str, path: str) -> str:
    """The token of the link to `path` in the mail the process sent to `address`."""
    outbox = _outbox(deployment)
    async with asyncio.timeout(WAIT):
        while True:
            for file in sorted(outbox.glob("*.eml")) if outbox.exists() else []:
                message = email.message_from_bytes(file.read_bytes(), policy=email.policy.default)
                body = message.get_body()
                if message["To"] == address and body is not None:
                    found = re.search(re.escape(path) + r"\?token=([\w-]+)", body.get_content())
                    if found:
                        return found.group(1)
            await asyncio.sleep(0.1)


async def admin_headers(deployment: Deployment) -> dict[str, str]:
    """A fresh admin login (the suite's own admin token may be near its 15 minutes)."""
    async with httpx.AsyncClient(base_url=deployment.url, timeout=WAIT * 2) as http:
        answer = await http.post("/api/admin/login", json={"username": "jefa", "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['access']}"}


async def user_id(deployment: Deployment, admin: dict[str, str], username: str) -> str:
    async with httpx.AsyncClient(base_url=deployment.url, timeout=WAIT * 2, headers=admin) as http:
        items = (await http.get("/api/admin/users", params={"q": username})).json()["items"]
    [user] = [u for u in items if u["username"] == username]
    return str(user["id"])


async def next_message(ws: Any, kind: str) -> dict[str, Any]:
    async with asyncio.timeout(WAIT):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message  # type: ignore[no-any-return]


async def assert_closed(ws: Any) -> None:
    """What an ended session's socket gets: the reason in Spanish, then close code 4401."""
    assert (await next_message(ws, "auth"))["message"] == ENDED
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(WAIT):
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == UNAUTHORIZED_CLOSE


async def assert_open(ws: Any) -> None:
    await ws.send('{"type":"ping"}')
    assert await next_message(ws, "pong") == {"type": "pong"}


async def token_answers(deployment: Deployment, access: str) -> int:
    async with httpx.AsyncClient(base_url=deployment.url, timeout=WAIT * 2) as http:
        answer = await http.get("/api/client/verify-token", headers={"Authorization": f"Bearer {access}"})
    return answer.status_code


@dataclass
class Scene:
    """A customer with two sessions and another customer with one, each with an open, greeted socket."""

    account: Account
    ending: dict[str, str]  # the session the case ends (its tokens)
    other: dict[str, str]  # the same customer's other session
    ending_ws: Any
    other_ws: Any
    bystander: dict[str, str]
    bystander_ws: Any


@contextlib.asynccontextmanager
async def scene(deployment: Deployment, *, with_email: bool = False) -> AsyncIterator[Scene]:
    account = await new_account(deployment, with_email=with_email)
    ending, other = await account.log_in(), await account.log_in()
    bystander = await (await new_account(deployment)).log_in()
    port = deployment.process.http_port
    async with contextlib.AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(websockets.connect(f"ws://127.0.0.1:{port}/ws?token={tokens['access']}"))
            for tokens in (ending, other, bystander)
        ]
        for ws in sockets:
            assert (await next_message(ws, "auth"))["data"] is not None
        yield Scene(account, ending, other, sockets[0], sockets[1], bystander, sockets[2])
        # Whatever ended, another customer was not touched: their socket and token go on.
        await assert_open(sockets[2])
        assert await token_answers(deployment, bystander["access"]) == 200


async def assert_only_that_session_ended(deployment: Deployment, s: Scene) -> None:
    await assert_closed(s.ending_ws)
    assert await token_answers(deployment, s.ending["access"]) == 401
    await assert_open(s.other_ws)
    assert await token_answers(deployment, s.other["access"]) == 200


async def assert_every_session_ended(deployment: Deployment, s: Scene, token_status: int = 401) -> None:
    for ws in (s.ending_ws, s.other_ws):
        await assert_closed(ws)
    for tokens in (s.ending, s.other):
        assert await token_answers(deployment, tokens["access"]) == token_status


async def test_logout_with_the_refresh_token_closes_that_sessions_socket(deployment: Deployment) -> None:
    async with scene(deployment) as s, s.account.http() as http:
        answer = await http.post("/api/logout", json={"refresh": s.ending["refresh"]})
        assert answer.status_code == 200, answer.text
        await assert_only_that_session_ended(deployment, s)


async def test_logout_with_only_the_access_token_closes_that_sessions_socket(deployment: Deployment) -> None:
    async with scene(deployment) as s, s.account.http() as http:
        answer = await http.post("/api/logout", headers={"Authorization": f"Bearer {s.ending['access']}"})
        assert answer.status_code == 200, answer.text
        await assert_only_that_session_ended(deployment, s)


async def test_a_refresh_token_presented_twice_closes_that_sessions_socket(deployment: Deployment) -> None:
    async with scene(deployment) as s, s.account.http() as http:
        renewed = await http.post("/api/refresh-token", json={"refresh": s.ending["refresh"]})
        assert renewed.status_code == 200, renewed.text
        stolen = await http.post("/api/refresh-token", json={"refresh": s.ending["refresh"]})
        assert stolen.status_code == 401 and stolen.json()["code"] == "refresh_reused", stolen.text
        await assert_only_that_session_ended(deployment, s)
        # The whole family ended: what the first renewal gave is refused too.
        assert await token_answers(deployment, renewed.json()["access"]) == 401


async def test_a_password_reset_through_the_mailed_link_closes_every_socket_of_the_account(
    deployment: Deployment,
) -> None:
    async with scene(deployment, with_email=True) as s, s.account.http() as http:
        verification = await mailed_token(deployment, s.account.email, "/verify-email")
        answer = await http.post("/api/client/verify-email", json={"token": verification})
        assert answer.status_code == 200, answer.text
        answer = await http.post("/api/client/password-recovery", json={"username": s.account.username})
        assert answer.status_code == 200, answer.text
        reset = await mailed_token(deployment, s.account.email, "/password-reset")
        answer = await http.post("/api/client/password-reset", json={"token": reset, "password": NEW_PASSWORD})
        assert answer.status_code == 200, answer.text
        await assert_every_session_ended(deployment, s)
        await s.account.log_in(NEW_PASSWORD)


async def test_a_password_change_closes_the_other_sessions_socket_and_keeps_the_callers(
    deployment: Deployment,
) -> None:
    async with scene(deployment) as s, s.account.http() as http:
        answer = await http.patch(
            "/api/client/settings",
            json={"old_password": PASSWORD, "new_password": NEW_PASSWORD},
            headers={"Authorization": f"Bearer {s.other['access']}"},  # the caller is the other session
        )
        assert answer.status_code == 200, answer.text
        await assert_only_that_session_ended(deployment, s)


async def test_a_block_by_an_admin_closes_every_socket_of_the_account(deployment: Deployment) -> None:
    admin = await admin_headers(deployment)
    async with scene(deployment) as s:
        target = await user_id(deployment, admin, s.account.username)
        async with httpx.AsyncClient(base_url=deployment.url, timeout=WAIT * 2, headers=admin) as http:
            answer = await http.patch(f"/api/admin/users/{target}", json={"blocked": True})
        assert answer.status_code == 200, answer.text
        # The tokens answer 403 "Su cuenta está bloqueada." rather than 401: the login page says why.
        await assert_every_session_ended(deployment, s, token_status=403)
        async with s.account.http() as http:
            refused = await http.post("/api/client/login", json={"username": s.account.username, "password": PASSWORD})
        assert refused.status_code == 403 and refused.json()["code"] == "account_blocked", refused.text


async def test_deleting_ones_own_account_closes_every_socket_of_it(deployment: Deployment) -> None:
    async with scene(deployment) as s, s.account.http() as http:
        answer = await http.post(
            "/api/client/settings/delete-account",
            json={"password": PASSWORD},
            headers={"Authorization": f"Bearer {s.ending['access']}"},
        )
        assert answer.status_code == 200, answer.text
        await assert_every_session_ended(deployment, s)


async def test_an_admin_deleting_an_account_closes_every_socket_of_it(deployment: Deployment) -> None:
    admin = await admin_headers(deployment)
    async with scene(deployment) as s:
        target = await user_id(deployment, admin, s.account.username)
        async with httpx.AsyncClient(base_url=deployment.url, timeout=WAIT * 2, headers=admin) as http:
            answer = await http.delete(f"/api/admin/users/{target}")
        assert answer.status_code == 200, answer.text
        await assert_every_session_ended(deployment, s)
