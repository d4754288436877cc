"""Builders for test data: accounts straight through the service, sessions through the real login endpoint."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role, User
from controlplane.services import Services

PASSWORD = "contraseña-segura-1"


async def make_user(
    services: Services,
    username: str = "ana",
    password: str = PASSWORD,
    role: Role = Role.CUSTOMER,
    email: str | None = None,
    alias: str | None = None,
) -> User:
    async with services.sessionmaker.begin() as db:
        user = await services.accounts.create_user(db, username, password, role)
        if email:
            user.email, user.email_verified = email, True
        if alias:
            user.alias, user.alias_key = alias, alias.lower()
    return user


async def login(
    client: AsyncTestClient[Any],
    username: str = "ana",
    password: str = PASSWORD,
    admin: bool = False,
) -> dict[str, str]:
    path = "/api/admin/login" if admin else "/api/client/login"
    answer = await client.post(path, json={"username": username, "password": password, "remember": True})
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def bearer(tokens: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens['access']}"}


async def logged_in(
    services: Services, client: AsyncTestClient[Any], username: str = "ana", **kw: Any
) -> dict[str, str]:
    """Create a customer and return the Authorization header of a fresh session."""
    await make_user(services, username, **kw)
    return bearer(await login(client, username))
