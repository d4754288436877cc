"""Servers from the manager: create with a one-time credential and install steps, edit, revoke, reissue."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, update

from controlplane.domain.servers.models import Server
from controlplane.services import Services
from tests.api.manager.world import audit_count, build_world, last_audit

NEW = {"name": "Bogotá 1", "address": "bog1.vpn.test", "tunnel_subnet": "10.60.0.0/24", "ubication": "Bogotá"}


def _agent_toml(install: str) -> dict[str, Any]:
    start = install.index("cat > /etc/vpn-node/agent.toml <<'EOF'\n") + len("cat > /etc/vpn-node/agent.toml <<'EOF'\n")
    return tomllib.loads(install[start : install.index("\nEOF\n", start)])


async def test_create_shows_credential_once_and_exact_agent_config(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    answer = await client.post("/api/admin/servers", json=NEW, headers=world.admin)
    assert answer.status_code == 201
    body = answer.json()
    server, credential = body["server"], body["credential"]
    assert server["name"] == "Bogotá 1" and server["online"] is False and server["has_credential"] is True
    config = _agent_toml(body["install"])
    assert config["node_id"] == server["id"] and config["credential"] == credential
    assert config["control_url"] == services.settings.grpc_public_url and config["interface"] == "wg0"
    assert "systemctl enable --now vpn-node-agent" in body["install"]
    assert "packaging/vpn-node-agent.service" in body["install"]
    # No VPN_AGENT_REPOSITORY on this control plane: the code step is marked, commented out, and named as missing.
    assert body["install_missing"] == ["VPN_AGENT_REPOSITORY"]
    assert "# FALTA: el panel no tiene VPN_AGENT_REPOSITORY" in body["install"]
    assert not [line for line in body["install"].splitlines() if line.startswith("git ")]
    # Never shown again, never stored in clear, never in the audit log.
    listed = (await client.get(f"/api/admin/servers/{server['id']}", headers=world.support)).json()
    assert credential not in str(listed)
    async with services.sessionmaker() as db:
        stored = await db.get(Server, server["id"])
        assert stored is not None and stored.credential_hash != credential
    entry = await last_audit(services)
    assert entry.action == "server.create" and credential not in entry.summary


async def test_agent_authenticates_only_with_the_current_credential(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    created = (await client.post("/api/admin/servers", json=NEW, headers=world.admin)).json()
    server_id, first = created["server"]["id"], created["credential"]

    async def accepted(credential: str) -> bool:
        async with services.sessionmaker() as db:
            return await services.servers.authenticate_node(db, server_id, credential, "") is not None

    assert await accepted(first)
    second = (await client.post(f"/api/admin/servers/{server_id}/credential", headers=world.admin)).json()["credential"]
    assert second != first and await accepted(second) and not await accepted(first)
    revoked = await client.delete(f"/api/admin/servers/{server_id}/credential", headers=world.admin)
    assert revoked.status_code == 200 and revoked.json()["has_credential"] is False
    assert not await accepted(second)


async def test_bad_server_input_writes_nothing(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    before = await audit_count(services)
    cases = [
        ({**NEW, "tunnel_subnet": "10.60.0.1/24"}, 422, "La subred del túnel no es válida (ejemplo: 10.8.0.0/24)."),
        ({**NEW, "tunnel_subnet": "10.8.0.0/16"}, 409, "La subred se superpone con la del servidor Miami 1."),
        ({**NEW, "name": "Miami 1"}, 409, "Ya existe un servidor con ese nombre."),
        ({**NEW, "port": 70000}, 422, "Puerto: debe ser como máximo 65535."),
        ({**NEW, "secret": 1}, 422, "El campo 'secret' no está permitido."),
        (
            {**NEW, "backbone_endpoint": "udp://bog1.vpn.test:51821"},
            422,
            "El endpoint del backbone debe ser un nombre de host o una IP, sin puerto ni esquema.",
        ),
        (
            {**NEW, "backbone_port": 51820},
            422,
            "El puerto del backbone debe ser distinto del puerto UDP de los clientes.",
        ),
    ]
    for body, status, message in cases:
        answer = await client.post("/api/admin/servers", json=body, headers=world.admin)
        assert (answer.status_code, answer.json()["message"]) == (status, message), body
    async with services.sessionmaker() as db:
        assert await db.scalar(select(func.count()).select_from(Server)) == 2
    assert await audit_count(services) == before


async def test_edit_server_and_refuse_taken_name(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    path = f"/api/admin/servers/{world.ids['server']}"
    answer = await client.patch(
        path, json={"active": False, "capacity": 10, "address": "m1.vpn.test"}, headers=world.admin
    )
    assert answer.status_code == 200
    body = answer.json()
    assert (body["active"], body["capacity"], body["address"], body["peers"]) == (False, 10, "m1.vpn.test", 1)
    taken = await client.patch(path, json={"name": "Madrid 1"}, headers=world.admin)
    assert taken.status_code == 409 and taken.json()["code"] == "server_name_taken"
    subnet = await client.patch(path, json={"tunnel_subnet": "10.99.0.0/24"}, headers=world.admin)
    assert subnet.status_code == 422 and subnet.json()["message"] == "El campo 'tunnel_subnet' no está permitido."
    assert (await last_audit(services)).summary == "Miami 1: Dirección → m1.vpn.test, Activo → no, Capacidad → 10"


async def test_live_status_reads_last_seen_and_stats(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    from controlplane.db import utcnow

    async with services.sessionmaker.begin() as db:
        server = await db.get(Server, world.ids["server"])
        assert server is not None
        server.last_seen, server.agent_version, server.backend = utcnow(), "0.3.0", "kernel"
        # The other one's agent was never heard from (the world's servers start as connected).
        (await db.get_one(Server, world.ids["other_server"])).last_seen = None
        server.serial, server.applied_serial = 7, 7
        server.stats_at, server.stats_peers_connected, server.stats_rx_bytes = utcnow(), 1, 1234
    listed = {s["name"]: s for s in (await client.get("/api/admin/servers", headers=world.support)).json()}
    miami, madrid = listed["Miami 1"], listed["Madrid 1"]
    assert miami["online"] is True and miami["agent_version"] == "0.3.0" and miami["in_sync"] is True
    assert miami["stats_peers_connected"] == 1 and miami["stats_rx_bytes"] == 1234 and miami["peers_active"] == 1
    assert madrid["online"] is False and madrid["last_seen"] is None
    overview = (await client.get("/api/admin/overview", headers=world.support)).json()
    assert overview["servers_online"] == 1 and overview["servers"] == 2


async def test_a_node_connected_here_counts_online_even_before_it_reports(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    from controlplane.nodes.registry import AgentLink

    world = await build_world(services, client)
    async with services.sessionmaker.begin() as db:  # neither agent has reported yet
        await db.execute(update(Server).values(last_seen=None))
    link = AgentLink(world.ids["server"])
    services.agents.add(link)
    try:
        overview = (await client.get("/api/admin/overview", headers=world.support)).json()
        assert overview["servers_online"] == 1
        servers = (await client.get("/api/admin/servers", headers=world.support)).json()
        listed = {s["name"]: s["online"] for s in servers}
        assert listed == {"Miami 1": True, "Madrid 1": False}
    finally:
        services.agents.remove(link)
    assert (await client.get("/api/admin/overview", headers=world.support)).json()["servers_online"] == 0


async def test_backbone_endpoint_and_port_are_set_and_checked(services: Services, client: AsyncTestClient[Any]) -> None:
    """Rooms between servers run over the backbone: the host other nodes dial and its UDP port, kept apart from the
    clients' port on the same machine."""
    world = await build_world(services, client)
    body = {**NEW, "allow_partys": True, "backbone_endpoint": " 10.200.0.7 ", "backbone_port": 51900}
    created = await client.post("/api/admin/servers", json=body, headers=world.admin)
    assert created.status_code == 201, created.text
    server = created.json()["server"]
    assert (server["backbone_endpoint"], server["backbone_port"]) == ("10.200.0.7", 51900)
    path = f"/api/admin/servers/{server['id']}"
    edited = await client.patch(path, json={"backbone_endpoint": "enlace.bog1.vpn.test"}, headers=world.admin)
    assert edited.status_code == 200 and edited.json()["backbone_endpoint"] == "enlace.bog1.vpn.test"
    clash = await client.patch(path, json={"port": 51900}, headers=world.admin)
    assert clash.status_code == 422 and clash.json()["fields"] == {"backbone_port": "Debe ser distinto del puerto UDP."}
    spaced = await client.patch(path, json={"backbone_endpoint": "enlace bog1"}, headers=world.admin)
    assert spaced.status_code == 422 and spaced.json()["code"] == "invalid_backbone_endpoint"
    after = (await client.get(path, headers=world.admin)).json()
    assert (after["port"], after["backbone_endpoint"]) == (51820, "enlace.bog1.vpn.test")


@pytest.fixture
def agent_repository(tmp_path: Path) -> Path:
    """A git repository with a tagged release (v1.4.0) and newer work on its default branch."""
    origin = tmp_path / "origen del servicio.git"  # a space: the steps must quote it
    subprocess.run(["git", "init", "--quiet", "-b", "main", str(origin)], check=True)
    git = ["git", "-C", str(origin), "-c", "user.name=t", "-c", "user.email=t@t"]
    (origin / "VERSION").write_text("1.4.0\n")
    subprocess.run([*git, "add", "VERSION"], check=True)
    subprocess.run([*git, "commit", "--quiet", "-m", "1.4.0"], check=True)
    subprocess.run([*git, "tag", "v1.4.0"], check=True)
    (origin / "VERSION").write_text("2.0.0-dev\n")
    subprocess.run([*git, "commit", "--quiet", "-am", "dev"], check=True)
    return origin


def run_pasted(lines: list[str], opt: Path) -> None:
    """Run install lines as an operator would paste them, with /opt/vpn-service moved to a scratch directory."""
    subprocess.run(["sh", "-e", "-c", "\n".join(lines).replace("/opt/vpn-service", str(opt))], check=True)


async def test_install_steps_fetch_the_agent_from_the_configured_repository(
    services: Services,
    client: AsyncTestClient[Any],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    agent_repository: Path,
) -> None:
    """With VPN_AGENT_REPOSITORY and VPN_AGENT_REF set, the code lines are exact and run as pasted."""
    world = await build_world(services, client)
    configured = msgspec.structs.replace(services.settings, agent_repository=str(agent_repository), agent_ref="v1.4.0")
    monkeypatch.setattr(services, "settings", configured)

    body = (await client.post("/api/admin/servers", json={**NEW, "allow_partys": True}, headers=world.admin)).json()
    assert body["install_missing"] == []
    fetch = [line for line in body["install"].splitlines() if line.startswith("git ")]
    assert fetch[0] == f"git clone --quiet '{agent_repository}' /opt/vpn-service"
    assert fetch[1].startswith("git -C /opt/vpn-service checkout --quiet v1.4.0")
    assert "FALTA" not in body["install"]
    assert "# Salas: abra también 51821/udp (backbone) a los otros servidores con salas" in body["install"]
    run_pasted(fetch, tmp_path / "opt")
    assert (tmp_path / "opt" / "VERSION").read_text() == "1.4.0\n"


async def test_install_steps_behind_nginx_tell_the_agent_to_check_the_certificate(
    services: Services, client: AsyncTestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guide's control plane: gRPC plaintext on loopback, nginx terminating TLS on the public name. The steps
    left `tls_ca` out there (only a control plane with its own certificate got one), and the agent spoke plaintext to
    nginx's TLS port forever; and they wrote `backend = "kernel"` whatever the host."""
    world = await build_world(services, client)
    behind_nginx = msgspec.structs.replace(
        services.settings, grpc_bind="127.0.0.1:50051", grpc_public_url="vpn.example.net:7443", grpc_tls_cert=""
    )
    monkeypatch.setattr(services, "settings", behind_nginx)
    body = (await client.post("/api/admin/servers", json=NEW, headers=world.admin)).json()
    config = _agent_toml(body["install"])
    assert config["control_url"] == "vpn.example.net:7443"
    assert config["tls_ca"] == "/etc/ssl/certs/ca-certificates.crt"
    assert "backend" not in config  # appended from the BACKEND the operator (or the host) chose
    assert 'printf \'backend = "%s"' in body["install"]


# What each field reaches (docs/api.md, "Servers"): `address`, `port` and `dns` every customer's WireGuard file,
# `name` and `address` the node's install steps. A line break in any of them could add a `PostUp = ...` line.
BAD_FIELDS = [
    ({"address": "bog1.vpn.test\nPostUp = touch /tmp/pwned"}, "address", "invalid_address"),
    ({"address": "bog1.vpn.test:51820"}, "address", "invalid_address"),
    ({"address": "[2001:db8::7]"}, "address", "invalid_address"),
    ({"dns": "1.1.1.1\r\nPostUp = touch /tmp/pwned"}, "dns", "invalid_dns"),
    ({"dns": "1.1.1.1\u2028PostUp = touch /tmp/pwned"}, "dns", "invalid_dns"),
    ({"dns": "dns.google"}, "dns", "invalid_dns"),
    ({"dns": "1.1.1.1 8.8.8.8"}, "dns", "invalid_dns"),
    ({"name": "Bogotá 1\x85rm -rf /"}, "name", "control_character"),
    ({"ubication": "Bogotá\u2029Centro"}, "ubication", "control_character"),
]


@pytest.mark.parametrize(("fields", "field", "code"), BAD_FIELDS, ids=[f"{f}-{c}" for _, f, c in BAD_FIELDS])
async def test_fields_customers_files_take_are_checked_on_create_and_update(
    services: Services, client: AsyncTestClient[Any], fields: dict[str, str], field: str, code: str
) -> None:
    world = await build_world(services, client)
    path = f"/api/admin/servers/{world.ids['server']}"
    before, audits = (await client.get(path, headers=world.admin)).json(), await audit_count(services)
    for answer in (
        await client.post("/api/admin/servers", json={**NEW, **fields}, headers=world.admin),
        await client.patch(path, json={"capacity": 5, **fields}, headers=world.admin),
    ):
        assert answer.status_code == 422, answer.text
        body = answer.json()
        assert body["code"] == code and list(body["fields"]) == [field], body
    assert (await client.get(path, headers=world.admin)).json() == before  # nothing half-written
    async with services.sessionmaker() as db:
        assert await db.scalar(select(func.count()).select_from(Server)) == 2
    assert await audit_count(services) == audits


async def test_good_addresses_and_dns_are_kept_as_customers_files_write_them(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    body = {**NEW, "address": " 2001:db8::7 ", "dns": "10.60.0.1,2606:4700:4700::1111, bogota.lan"}
    created = await client.post("/api/admin/servers", json=body, headers=world.admin)
    assert created.status_code == 201, created.text
    server = created.json()["server"]
    assert (server["address"], server["dns"]) == ("2001:db8::7", "10.60.0.1, 2606:4700:4700::1111, bogota.lan")
    edited = await client.patch(
        f"/api/admin/servers/{server['id']}", json={"address": "203.0.113.7", "dns": "1.1.1.1"}, headers=world.admin
    )
    assert edited.status_code == 200 and (edited.json()["address"], edited.json()["dns"]) == ("203.0.113.7", "1.1.1.1")


async def test_install_steps_never_turn_a_stored_name_into_a_command(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """A row from before the check (written past the API): its name and address go into comment lines of the steps
    an operator pastes as root, and a line break there would end the comment."""
    world = await build_world(services, client)
    async with services.sessionmaker.begin() as db:
        await db.execute(
            update(Server)
            .where(Server.id == world.ids["server"])
            .values(name="Miami 1\ntouch /tmp/pwned-name", address="m1.vpn.test\u2028touch /tmp/pwned-address")
        )
    answer = await client.post(f"/api/admin/servers/{world.ids['server']}/credential", headers=world.admin)
    assert answer.status_code == 201, answer.text
    install = answer.json()["install"]
    assert not [line for line in install.splitlines() if line.startswith("touch ")], install
    assert "# Servidor Miami 1touch /tmp/pwned-name (m1.vpn.testtouch /tmp/pwned-address): como root" in install
