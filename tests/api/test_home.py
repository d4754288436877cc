"""The customer home: announcements, newest first, and the latest game-connect client release."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.db import utcnow
from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.services import Services
from tests.api.factories import logged_in


async def test_announcements_newest_first_without_hidden_ones(services: Services, client: AsyncTestClient[Any]) -> None:
    headers = await logged_in(services, client)
    now = utcnow()
    async with services.sessionmaker.begin() as db:
        db.add(Announcement(name="Viejo", message="a", created=now - timedelta(days=2)))
        db.add(Announcement(name="Nuevo", message="b", created=now))
        db.add(Announcement(name="Oculto", message="c", visible=False))
    answer = await client.get("/api/client/advertisements", headers=headers)
    assert answer.status_code == 200
    assert [(a["name"], a["message"]) for a in answer.json()] == [("Nuevo", "b"), ("Viejo", "a")]
    assert set(answer.json()[0]) == {"id", "name", "created", "message"}


async def test_latest_client_release(services: Services, client: AsyncTestClient[Any]) -> None:
    headers = await logged_in(services, client)
    none_yet = await client.get("/api/client/agent", headers=headers)
    assert none_yet.status_code == 404
    assert none_yet.json()["code"] == "no_client_release"
    async with services.sessionmaker.begin() as db:
        db.add(ClientRelease(version="1.2.0", url="https://example.org/old", created=utcnow() - timedelta(days=1)))
        db.add(ClientRelease(version="1.3.0", url="https://example.org/new"))
    answer = await client.get("/api/client/agent", headers=headers)
    assert answer.json() == {"version": "1.3.0", "url": "https://example.org/new"}
    assert (await client.get("/api/client/agent")).status_code == 401
