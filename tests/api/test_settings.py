"""The customer's own settings: alias, email and password, with the contract's Spanish messages
(docs/contract.md#validation)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.services import Services
from tests.api.factories import PASSWORD, bearer, logged_in, login, make_user
from tests.fakes.smtp import FakeSMTP


async def test_alias_is_set_then_changed(services: Services, client: AsyncTestClient[Any]) -> None:
    headers = await logged_in(services, client)
    first = await client.patch("/api/client/settings", json={"alias": "Lobo"}, headers=headers)
    assert first.status_code == 200
    assert first.json()["message"] == "Alias configurado correctamente."
    assert first.json()["alias"] == "Lobo"
    second = await client.patch("/api/client/settings", json={"alias": "Lobo Gris"}, headers=headers)
    assert second.json()["message"] == "Alias modificado correctamente."
    assert (await client.get("/api/client/settings", headers=headers)).json()["alias"] == "Lobo Gris"


async def test_alias_rules(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "beto", alias="Lobo")
    headers = await logged_in(services, client)
    blank = await client.patch("/api/client/settings", json={"alias": "  "}, headers=headers)
    assert blank.status_code == 422
    assert blank.json()["message"] == "El alias no puede estar en blanco"
    taken = await client.patch("/api/client/settings", json={"alias": "LOBO"}, headers=headers)
    assert taken.status_code == 409
    assert (await client.get("/api/client/settings", headers=headers)).json()["alias"] is None


async def test_email_rules_and_verification_mail(
    services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP
) -> None:
    headers = await logged_in(services, client, email="ana@example.org")
    blank = await client.patch("/api/client/settings", json={"email": ""}, headers=headers)
    assert blank.json()["message"] == "El email no puede estar en blanco"
    same = await client.patch("/api/client/settings", json={"email": "ANA@example.org"}, headers=headers)
    assert same.status_code == 422
    assert same.json()["message"] == "El nuevo email no puede ser igual q el anterior"
    changed = await client.patch("/api/client/settings", json={"email": "ana@nuevo.org"}, headers=headers)
    assert changed.status_code == 200
    assert changed.json()["message"] == "Email modificado correctamente."
    assert changed.json()["email"] == "ana@nuevo.org"
    assert changed.json()["email_verified"] is False
    smtp.wait_for("ana@nuevo.org")

    removed = await client.delete("/api/client/settings", headers=headers)
    assert removed.status_code == 200
    assert removed.json()["message"] == "Email eliminado correctamente"
    assert removed.json()["email"] is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"old_password": "", "new_password": "x"}, "Las contraseñas no pueden estar en blanco."),
        (
            {"old_password": PASSWORD, "new_password": PASSWORD},
            "La nueva contraseña no puede ser igual a la anterior.",
        ),
        (
            {"old_password": "no-es-la-mia", "new_password": "otra-clave-99"},
            "La contraseña actual no es correcta.",
        ),
        (
            {"old_password": PASSWORD, "new_password": "corta"},
            "La contraseña debe tener entre 8 y 128 caracteres.",
        ),
        ({"alias": "Lobo", "email": "a@b.org"}, "Envíe un solo cambio: email, alias o contraseña."),
    ],
)
async def test_bad_password_changes_are_refused_and_keep_the_old_password(
    services: Services, client: AsyncTestClient[Any], change: dict[str, str], message: str
) -> None:
    headers = await logged_in(services, client)
    answer = await client.patch("/api/client/settings", json=change, headers=headers)
    assert answer.status_code == 422
    assert answer.json()["message"] == message
    assert (await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD})).status_code == 200


async def test_password_change_takes_effect(services: Services, client: AsyncTestClient[Any]) -> None:
    headers = await logged_in(services, client)
    change = {"old_password": PASSWORD, "new_password": "clave-nueva-2026"}
    answer = await client.patch("/api/client/settings", json=change, headers=headers)
    assert answer.status_code == 200
    assert answer.json()["message"] == "Contraseña cambiada correctamente."
    assert bearer(await login(client, "ana", "clave-nueva-2026"))


async def test_alias_needs_rooms_switched_on(services: Services, client: AsyncTestClient[Any]) -> None:
    headers = await logged_in(services, client)
    async with services.sessionmaker.begin() as db:
        await services.switches.update(db, {"allow_partys": False})
    answer = await client.patch("/api/client/settings", json={"alias": "Lobo"}, headers=headers)
    assert answer.status_code == 403
    me = (await client.get("/api/client/settings", headers=headers)).json()
    assert me["web_settings"] == {"allow_partys": False, "allow_email": True}


async def test_oversized_and_wrongly_typed_input(services: Services, client: AsyncTestClient[Any]) -> None:
    headers = await logged_in(services, client)
    answer = await client.patch("/api/client/settings", json={"alias": "x" * 500}, headers=headers)
    assert answer.status_code == 422
    assert answer.json()["fields"] == {"alias": "Es demasiado largo (máximo 64 caracteres)."}
    answer = await client.patch("/api/client/settings", json={"alias": 7}, headers=headers)
    assert answer.status_code == 422
    answer = await client.patch("/api/client/settings", content=b"{not json", headers=headers)
    assert answer.status_code in (400, 422)
    assert answer.json()["message"]
    huge = await client.patch("/api/client/settings", content=b'{"alias":"' + b"x" * 200_000 + b'"}', headers=headers)
    assert huge.status_code == 413
    assert huge.json()["message"] == "La solicitud es demasiado grande."
