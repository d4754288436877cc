"""What `make run` finds and prints on its second and later starts (docs/deployment.md, "The demo").

The demo finds its own server by the id remembered when the demo data was loaded, so an admin may rename it in the
manager; and it prints a demo login's password only while that password still opens the account. The in-process
tests run the start-up code of `python -m controlplane demo` (`prepare` and `banner`, what `_serve` prints) with the
changes made through the real API; the last one runs the command itself twice.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import delete

from controlplane.app import create_app
from controlplane.demo.data import DEMO_ADMIN, DEMO_CUSTOMER, DEMO_SERVER, SERVER_ID_FILE, SIMULATED_ADDRESS
from controlplane.demo.real_node import NODE_ADDRESS
from controlplane.demo.run import DemoStart, banner, prepare
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.migrate import upgrade
from controlplane.services import build_services
from controlplane.settings import Settings

REPO = Path(__file__).resolve().parents[2]
# argon2 at a test's cost: the code path is the production one, each hash takes milliseconds instead of ~100.
CHEAP_HASHING = {"VPN_ARGON2_TIME_COST": "1", "VPN_ARGON2_MEMORY_KIB": "8192", "VPN_ARGON2_PARALLELISM": "1"}
NEW_PASSWORD = "mi-propia-clave-5678"


@pytest.fixture
def var_dir(tmp_path: Path) -> Path:
    return (tmp_path / "var").resolve()


@pytest.fixture
def settings(var_dir: Path) -> Settings:
    settings = Settings.from_env({"VPN_VAR_DIR": str(var_dir), **CHEAP_HASHING})
    upgrade(settings.database_url)  # what run_demo does before serving
    return settings


@asynccontextmanager
async def manager(settings: Settings) -> AsyncIterator[AsyncTestClient[Any]]:
    """The control plane's API on the demo's database, as the web client would use it."""
    services = build_services(msgspec.structs.replace(settings, run_jobs=False, run_grpc=False))
    try:
        async with AsyncTestClient(app=create_app(services=services), base_url=settings.client_url) as client:
            yield client
    finally:
        await services.close()


async def _auth(client: AsyncTestClient[Any], path: str, credentials: tuple[str, str]) -> dict[str, str]:
    answer = await client.post(path, json={"username": credentials[0], "password": credentials[1], "remember": False})
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['access']}"}


def _printed(start: DemoStart, settings: Settings, var_dir: Path) -> str:
    return banner(start, settings, var_dir, "nodo simulado", "  Pasarelas de prueba: ...")


def _login_line(printed: str, username: str) -> str:
    return next(line for line in printed.splitlines() if f"usuario '{username}'" in line)


async def test_a_demo_server_renamed_in_the_manager_is_the_one_the_next_start_uses(
    settings: Settings, var_dir: Path
) -> None:
    first = await prepare(settings, var_dir, SIMULATED_ADDRESS)
    assert first.loaded and first.server is not None and first.server.name == DEMO_SERVER
    async with manager(settings) as client:
        admin = await _auth(client, "/api/admin/login", DEMO_ADMIN)
        renamed = await client.patch(
            f"/api/admin/servers/{first.server.id}", json={"name": "Habana Centro"}, headers=admin
        )
        assert renamed.status_code == 200, renamed.text

    second = await prepare(settings, var_dir, NODE_ADDRESS)  # a start with the real agent this time

    assert not second.loaded and second.server is not None
    assert (second.server.id, second.server.name) == (first.server.id, "Habana Centro")
    assert "Servidor 'Habana Centro': nodo simulado" in _printed(second, settings, var_dir)
    async with manager(settings) as client:
        admin = await _auth(client, "/api/admin/login", DEMO_ADMIN)
        servers = (await client.get("/api/admin/servers", headers=admin)).json()
        customer = await _auth(client, "/api/client/login", DEMO_CUSTOMER)
        peers = (await client.get("/api/client/accounts/peers", headers=customer)).json()
    assert [(s["name"], s["address"]) for s in servers] == [("Habana Centro", NODE_ADDRESS)]  # no second server
    assert [p["server"]["name"] for p in peers] == ["Habana Centro"]  # the customer's peer is where the node runs
    services = build_services(settings)
    try:  # the credential handed to this start's node opens the renamed server
        async with services.read_sessionmaker.begin() as db:
            opened = await services.servers.authenticate_node(db, second.server.id, second.server.credential, "")
        assert opened is not None and opened.name == "Habana Centro"
    finally:
        await services.close()


async def test_a_demo_database_from_before_the_id_was_remembered_is_found_by_name_then_remembered(
    settings: Settings, var_dir: Path
) -> None:
    first = await prepare(settings, var_dir, SIMULATED_ADDRESS)
    assert first.server is not None
    (var_dir / SERVER_ID_FILE).unlink()  # as a var folder made by an older checkout

    again = await prepare(settings, var_dir, SIMULATED_ADDRESS)

    assert again.server is not None and again.server.id == first.server.id
    assert (var_dir / SERVER_ID_FILE).read_text().strip() == first.server.id


async def test_a_demo_server_deleted_from_the_database_is_reported_with_how_to_start_over(
    settings: Settings, var_dir: Path
) -> None:
    first = await prepare(settings, var_dir, SIMULATED_ADDRESS)
    assert first.server is not None
    services = build_services(settings)
    try:  # no page deletes a server: someone edited the database
        async with services.sessionmaker.begin() as db:
            await db.execute(delete(Peer))
            await db.execute(delete(Server))
    finally:
        await services.close()

    again = await prepare(settings, var_dir, SIMULATED_ADDRESS)

    assert again.server is None
    printed = _printed(again, settings, var_dir)
    assert "Servidor de la demostración: no está en la base de datos" in printed
    assert "la demostración sigue sin nodo" in printed
    assert f"borre la carpeta {var_dir}" in printed
    assert f"contraseña '{DEMO_CUSTOMER[1]}'" in printed  # the logins are still printed


async def test_the_logins_are_printed_while_untouched_and_a_changed_password_is_not(
    settings: Settings, var_dir: Path
) -> None:
    for start in (
        await prepare(settings, var_dir, SIMULATED_ADDRESS),
        await prepare(settings, var_dir, SIMULATED_ADDRESS),
    ):
        printed = _printed(start, settings, var_dir)
        assert (
            f"  Cliente:        {settings.client_url}/login            usuario '{DEMO_CUSTOMER[0]}', "
            f"contraseña '{DEMO_CUSTOMER[1]}'"
        ) in printed
        assert (
            f"  Administración: {settings.client_url}/manager/login    usuario '{DEMO_ADMIN[0]}', "
            f"contraseña '{DEMO_ADMIN[1]}'"
        ) in printed
    async with manager(settings) as client:
        customer = await _auth(client, "/api/client/login", DEMO_CUSTOMER)
        changed = await client.patch(
            "/api/client/settings",
            json={"old_password": DEMO_CUSTOMER[1], "new_password": NEW_PASSWORD},
            headers=customer,
        )
        assert changed.status_code == 200, changed.text

    printed = _printed(await prepare(settings, var_dir, SIMULATED_ADDRESS), settings, var_dir)

    line = _login_line(printed, DEMO_CUSTOMER[0])
    assert f"{settings.client_url}/login" in line and "contraseña cambiada por usted" in line
    assert DEMO_CUSTOMER[1] not in printed and NEW_PASSWORD not in printed
    assert f"contraseña '{DEMO_ADMIN[1]}'" in _login_line(printed, DEMO_ADMIN[0])  # the admin's is untouched


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_demo(var_dir: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VPN_")}
    env |= {"VPN_HTTP_BIND": f"127.0.0.1:{port}", "VPN_VAR_DIR": str(var_dir), "VPN_DEMO_NODE": "simulated"}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "controlplane", "demo"], cwd=REPO, env=env | CHEAP_HASHING, stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + 120
    while "Application startup complete" not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the demo did not start ({process.poll()}):\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.3)
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)  # Ctrl+C
    try:
        process.wait(90)  # generous: a loaded CI machine is slow to shut down (the exit code is what is checked)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _eventually_online(http: httpx.Client, admin: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while True:
        servers: list[dict[str, Any]] = http.get("/api/admin/servers", headers=admin).json()
        if servers[0]["online"] or time.monotonic() > deadline:
            return servers[0]
        time.sleep(0.5)


def test_the_command_restarted_after_a_rename_and_a_password_change_serves_the_renamed_server(tmp_path: Path) -> None:
    var_dir, port = tmp_path / "var", _free_port()
    url = f"http://127.0.0.1:{port}"
    first = _run_demo(var_dir, port, tmp_path / "first.log")
    try:
        with httpx.Client(base_url=url, timeout=30) as http:
            login = http.post("/api/admin/login", json={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]})
            admin = {"Authorization": f"Bearer {login.json()['access']}"}
            server = _eventually_online(http, admin)
            assert server["name"] == DEMO_SERVER and server["online"]
            renamed = http.patch(f"/api/admin/servers/{server['id']}", json={"name": "Habana Centro"}, headers=admin)
            assert renamed.status_code == 200, renamed.text
            login = http.post("/api/client/login", json={"username": DEMO_CUSTOMER[0], "password": DEMO_CUSTOMER[1]})
            customer = {"Authorization": f"Bearer {login.json()['access']}"}
            changed = http.patch(
                "/api/client/settings", json={"old_password": DEMO_CUSTOMER[1], "new_password": NEW_PASSWORD},
                headers=customer,
            )  # fmt: skip
            assert changed.status_code == 200, changed.text
    finally:
        _stop(first)
    assert f"contraseña '{DEMO_CUSTOMER[1]}'" in (tmp_path / "first.log").read_text()

    second = _run_demo(var_dir, port, tmp_path / "second.log")
    try:
        printed = (tmp_path / "second.log").read_text()
        assert "Servidor 'Habana Centro': nodo simulado" in printed
        assert "contraseña cambiada por usted" in printed and DEMO_CUSTOMER[1] not in printed
        assert f"contraseña '{DEMO_ADMIN[1]}'" in printed
        with httpx.Client(base_url=url, timeout=30) as http:
            login = http.post("/api/admin/login", json={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]})
            server = _eventually_online(http, {"Authorization": f"Bearer {login.json()['access']}"})
        assert server["name"] == "Habana Centro" and server["online"]  # the simulated node drives the renamed one
    finally:
        _stop(second)
    assert second.returncode == 0
