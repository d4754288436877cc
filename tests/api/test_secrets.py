"""Secrets never in logs, never in plain text in the database; the key file is checked at start.

A full customer flow runs with every logger at DEBUG (SQL statements and their parameters included); afterwards
every secret the flow produced (client private keys, preshared keys, mirror tokens, passwords, access and refresh
tokens, reset links) is looked for in the captured log text and in every column of every table.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.crypto import KeyFileError, SecretBox
from controlplane.domain.accounts.models import Role
from controlplane.models import Base
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from tests.api.factories import PASSWORD, login, make_server, make_user
from tests.fakes.captcha import GOOD_TOKEN
from tests.fakes.smtp import FakeSMTP, link_in

PEERS = "/api/client/accounts/peers"
NEW_PASSWORD = "otra-clave-muy-secreta-2"


async def _ack_everything(services: Services) -> None:
    """What the node agent would do: answer every pending operation with success."""
    async with services.sessionmaker.begin() as db:
        pending = await db.execute(select(NodeOperation.id).where(NodeOperation.status == OperationStatus.PENDING))
        for op_id in pending.scalars().all():
            await services.operations.finish(db, op_id, None)


def _keys_of(config: str) -> list[str]:
    return re.findall(r"^(?:PrivateKey|PresharedKey) = (\S+)$", config, flags=re.M)


async def _full_flow(services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP) -> list[str]:
    secrets: list[str] = [PASSWORD, NEW_PASSWORD]
    await make_user(services, "jefa", role=Role.ADMIN)
    first = await make_server(services, "Miami 1", "10.8.0.0/24")
    await make_server(services, "Miami 2", "10.9.0.0/24")
    registered = await client.put(
        "/api/client/register",
        json={"username": "ana", "password": PASSWORD, "captcha_token": GOOD_TOKEN, "email": "ana@example.org"},
    )
    assert registered.status_code == 201, registered.text
    verify_token = link_in(smtp.wait_for("ana@example.org"), "/verify-email")
    smtp.clear()
    secrets.append(verify_token)
    assert (await client.post("/api/client/verify-email", json={"token": verify_token})).status_code == 200
    tokens = await login(client, "ana")
    admin = await login(client, "jefa", admin=True)
    secrets += [tokens["access"], tokens["refresh"], admin["access"], admin["refresh"]]
    auth = {"Authorization": f"Bearer {tokens['access']}"}
    created = await client.post(
        "/api/admin/peers",
        json={"username": "ana", "name": "movil", "server": first.id, "days": 30},
        headers={"Authorization": f"Bearer {admin['access']}"},
    )
    assert created.status_code == 201, created.text
    peer = created.json()
    await _ack_everything(services)

    async def download() -> None:
        answer = await client.get(f"{PEERS}/{peer['id']}", headers=auth)
        assert answer.status_code == 200, answer.text
        keys = _keys_of(answer.text)
        assert len(keys) == 2
        secrets.extend(keys)

    await download()
    # The staff answer carries no mirror link (docs/security.md): the customer's own list does.
    [listed] = (await client.get(PEERS, headers=auth)).json()
    secrets.append(listed["mirror_link"].rsplit("/", 1)[1])
    regenerated = await client.patch(f"{PEERS}/{peer['id']}", json={"operation": "regenerate"}, headers=auth)
    assert regenerated.status_code == 202
    await _ack_everything(services)
    await download()
    servers = (await client.get(f"/api/client/network/{peer['id']}", headers=auth)).json()
    moved = await client.patch(
        f"{PEERS}/{peer['id']}", json={"operation": "change_server", "server": servers[0]["id"]}, headers=auth
    )
    assert moved.status_code == 202
    await _ack_everything(services)
    link = (await client.patch(f"{PEERS}/{peer['id']}", json={"operation": "regenerate_token"}, headers=auth)).json()
    token = link["mirror_link"].rsplit("/", 1)[1]
    secrets.append(token)
    mirrored = await client.get(f"/mirror/{token}")
    assert mirrored.status_code == 200
    secrets.extend(_keys_of(mirrored.text))
    refreshed = (await client.post("/api/refresh-token", json={"refresh": tokens["refresh"]})).json()
    secrets += [refreshed["access"], refreshed["refresh"]]
    # Recovery: the reset link's token is a secret too.
    assert (await client.post("/api/client/password-recovery", json={"username": "ana"})).status_code == 200
    reset_token = link_in(smtp.wait_for("ana@example.org"), "/password-reset")
    secrets.append(reset_token)
    reset = await client.post("/api/client/password-reset", json={"token": reset_token, "password": NEW_PASSWORD})
    assert reset.status_code == 200
    # Bad input and failures log too: a wrong password, a refused token.
    await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD})
    await client.get(PEERS, headers={"Authorization": "Bearer " + tokens["access"][:-2]})
    return sorted(set(secrets))


async def test_no_secret_in_logs_or_in_plain_text_in_the_database(
    services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    logging.getLogger("sqlalchemy.engine").setLevel(logging.INFO)  # statements and their parameters
    try:
        secrets = await _full_flow(services, client, smtp)
    finally:
        logging.getLogger("sqlalchemy.engine").setLevel(logging.WARNING)
    assert len(secrets) >= 14
    # httpx's lines for testserver.local are the test client's own requests, not the service's logs.
    ours = [r for r in caplog.records if not (r.name.startswith("httpx") and "testserver.local" in r.getMessage())]
    logged = "\n".join(f"{r.getMessage()} {r.exc_text or ''} {r.__dict__}" for r in ours)
    assert "INSERT INTO peers" in logged  # the capture did see the SQL layer
    for secret in secrets:
        assert secret not in logged, f"a secret ({secret[:6]}...) was logged"

    stored: list[str] = []
    async with services.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            for row in (await conn.execute(table.select())).all():
                stored.extend(str(value) for value in row if value is not None)
    everything = "\n".join(stored)
    assert len(stored) > 50
    for secret in secrets:
        assert secret not in everything, f"a secret ({secret[:6]}...) is stored in plain text"


def test_a_key_file_others_can_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "secret.key"
    SecretBox.from_file(path)  # first run creates it, owner-only
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o644)
    with pytest.raises(KeyFileError) as refused:
        SecretBox.from_file(path)
    assert f"chmod 600 {path}" in str(refused.value)
    os.chmod(path, 0o600)
    SecretBox.from_file(path)
