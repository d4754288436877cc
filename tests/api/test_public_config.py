"""Public configuration, the status check and maintenance mode."""

from __future__ import annotations

import asyncio
from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role
from controlplane.services import Services
from tests.api.factories import PASSWORD, bearer, logged_in, login, make_user
from tests.api.live import live_client


async def test_public_config_carries_switches_and_product_settings(client: AsyncTestClient[Any]) -> None:
    answer = await client.get("/api/client")
    assert answer.status_code == 200
    config = answer.json()
    assert config["product_name"] == "VPN Prueba"
    assert config["maintenance"] is False
    assert config["allow_registration"] is True
    assert config["allow_payments_qvapay"] is False
    assert config["captcha"] == {"provider": "hcaptcha", "site_key": "site-key"}
    assert config["support_url"] == "https://soporte.example.invalid"
    assert set(config) >= {
        "allow_password_recovery",
        "show_landing",
        "allow_email",
        "allow_payments_remesita",
    }


async def _switch(services: Services, client: AsyncTestClient[Any], **changes: bool) -> dict[str, Any]:
    await make_user(services, "jefa", role=Role.ADMIN)
    answer = await client.patch(
        "/api/admin/switches", json=changes, headers=bearer(await login(client, "jefa", admin=True))
    )
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


async def test_maintenance_answers_503_on_customer_calls_but_not_on_config_and_status(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers = await logged_in(services, client)
    await _switch(services, client, maintenance=True)

    for method, path in [
        ("GET", "/api/client/settings"),
        ("POST", "/api/client/login"),
        ("GET", "/api/client/verify-token"),
    ]:
        answer = await client.request(method, path, headers=headers, json={"username": "a", "password": "b"})
        assert answer.status_code == 503, path
        assert answer.json() == {
            "message": "El servicio está en mantenimiento. Intente más tarde.",
            "code": "maintenance",
        }
    assert (await client.get("/api/client/status")).json() == {"maintenance": True}
    assert (await client.get("/api/client")).json()["maintenance"] is True


async def test_admin_switches_maintenance_off_while_it_is_on(services: Services, client: AsyncTestClient[Any]) -> None:
    await _switch(services, client, maintenance=True)
    admin = bearer(await login(client, "jefa", admin=True))  # admin login still works in maintenance
    answer = await client.patch("/api/admin/switches", json={"maintenance": False}, headers=admin)
    assert answer.json()["maintenance"] is False
    services.switches.invalidate()
    assert (await client.get("/api/client/status")).json() == {"maintenance": False}


async def test_every_page_call_after_a_flip_sees_it_even_when_they_arrive_together(services: Services) -> None:
    """A page opened right after maintenance is switched on makes its calls side by side: none of them may be
    answered from what the flip replaced (the browser would stay on the page instead of /maintenance)."""
    await make_user(services, "jefa", role=Role.ADMIN)
    async with live_client(services) as http:
        assert (await http.get("/api/client/status")).json() == {"maintenance": False}  # cached in this process
        login_answer = await http.post("/api/admin/login", json={"username": "jefa", "password": PASSWORD})
        assert login_answer.status_code == 200, login_answer.text
        admin = {"Authorization": f"Bearer {login_answer.json()['access']}"}
        flipped = await http.patch("/api/admin/switches", json={"maintenance": True}, headers=admin)
        assert flipped.status_code == 200, flipped.text
        answers = await asyncio.gather(*(http.get("/api/client/status") for _ in range(20)))
    assert [a.json() for a in answers] == [{"maintenance": True}] * 20


async def test_support_staff_cannot_flip_switches(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "ayuda", role=Role.SUPPORT)
    headers = bearer(await login(client, "ayuda", admin=True))
    answer = await client.patch("/api/admin/switches", json={"maintenance": True}, headers=headers)
    assert answer.status_code == 403
    assert answer.json()["code"] == "admin_only"
    assert (await client.get("/api/client/status")).json() == {"maintenance": False}


async def test_unknown_switch_is_refused_in_spanish(services: Services, client: AsyncTestClient[Any]) -> None:
    await make_user(services, "jefa", role=Role.ADMIN)
    headers = bearer(await login(client, "jefa", admin=True))
    answer = await client.patch("/api/admin/switches", json={"allow_everything": True}, headers=headers)
    assert answer.status_code == 422
    assert "allow_everything" in answer.json()["message"]


async def test_unknown_api_path_answers_json_404_and_other_paths_get_the_web_client(
    client: AsyncTestClient[Any],
) -> None:
    answer = await client.get("/api/client/nothing-here")
    assert answer.status_code == 404
    assert answer.json() == {"message": "No encontrado.", "code": "not_found"}
    page = await client.get("/dashboard/peers")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
