"""Nothing an admin types reaches a customer's device as a command (issue 29, configuration injection), against the
real control plane (the suite's subprocess).

wg-quick runs `PostUp`/`PreUp`/`PostDown`/`PreDown` lines as root. A server's `dns` and `address` went verbatim into
every customer's `.conf` and mirror answer, so one stolen admin session could add such a line to every
configuration of a server. Here an admin tries it through the manager API with every line break a reader may honour
(LF, CR, CRLF, U+2028, U+0085) and NUL, on an update and on a create; then bad values are written into the database
directly, past the API, as a row from before the fix would be. Whatever happens, the customer's download and mirror
answer hold only the lines the template writes (docs/security.md, "Third round")."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.services import build_services
from controlplane.settings import Settings
from tests.adversarial.conftest import Deployment
from tests.adversarial.test_ids_in_bodies import admin
from tests.api.factories import PASSWORD, make_peer, make_server, make_user

INJECTED = "PostUp = touch /tmp/pwned"
BREAKS = {"LF": "\n", "CR": "\r", "CRLF": "\r\n", "U+2028": "\u2028", "U+0085": "\x85", "NUL": "\x00"}
HOOKS = ("postup", "preup", "postdown", "predown")
# Every line the renderer writes (controlplane/domain/peers/config_file.py), by section.
TEMPLATE = {
    "[Interface]": {"PrivateKey", "Address", "DNS"},
    "[Peer]": {"PublicKey", "PresharedKey", "Endpoint", "AllowedIPs", "PersistentKeepalive"},
}


@dataclass
class Victim:
    """A server of its own and one customer's peer on it, so the rest of the suite's world stays as it was."""

    server_id: str
    peer_id: str
    mirror_token: str
    headers: dict[str, str]


def only_template_lines(text: str) -> None:
    """The configuration holds the template's lines and nothing else, however a client splits lines."""
    assert "\x00" not in text, repr(text)
    section = ""
    seen: set[tuple[str, str]] = set()
    for line in text.splitlines():  # splits at \r, \n, \x0b, \x0c, \x1c-\x1e, \x85, U+2028, U+2029
        stripped = line.strip()
        if not stripped:
            continue
        assert not stripped.lower().replace(" ", "").startswith(HOOKS), f"hook line {line!r} in {text!r}"
        if stripped in TEMPLATE:
            section = stripped
            continue
        key, equals, _ = stripped.partition("=")
        assert equals and key.strip() in TEMPLATE.get(section, set()), f"line {line!r} is not the template's"
        assert (section, key.strip()) not in seen, f"{key.strip()} twice in {text!r}"
        seen.add((section, key.strip()))
    assert ("[Peer]", "Endpoint") in seen, text


async def _seed(settings: Settings) -> tuple[str, str, str]:
    services = build_services(settings)
    try:
        server = await make_server(services, "Injected 1", "10.71.0.0/24")
        user = await make_user(services, "cliente_c", email="cliente_c@example.test")
        peer = await make_peer(services, user, "consola", server)
        return server.id, peer.id, services.box.decrypt(peer.mirror_token_enc)
    finally:
        await services.close()


async def _write(settings: Settings, table: type[Server] | type[Peer], row_id: str, **values: Any) -> None:
    """Straight into the database, past every check of the API."""
    services = build_services(settings)
    try:
        async with services.sessionmaker.begin() as db:
            await db.execute(update(table).where(table.id == row_id).values(**values))
    finally:
        await services.close()


def plant(deployment: Deployment, table: type[Server] | type[Peer], row_id: str, **values: Any) -> None:
    asyncio.run(_write(Settings.from_env(deployment.process.env), table, row_id, **values))


@pytest.fixture(scope="module")
def victim(deployment: Deployment) -> Victim:
    server_id, peer_id, token = asyncio.run(_seed(Settings.from_env(deployment.process.env)))
    login = httpx.post(
        f"{deployment.url}/api/client/login", json={"username": "cliente_c", "password": PASSWORD}, timeout=30
    )
    assert login.status_code == 200, login.text
    return Victim(server_id, peer_id, token, {"Authorization": f"Bearer {login.json()['access']}"})


def download(deployment: Deployment, victim: Victim) -> httpx.Response:
    return httpx.get(f"{deployment.url}/api/client/accounts/peers/{victim.peer_id}", headers=victim.headers, timeout=30)


def mirror(deployment: Deployment, victim: Victim) -> httpx.Response:
    return httpx.get(f"{deployment.url}/mirror/{victim.mirror_token}", timeout=30)


@pytest.fixture
def clean(deployment: Deployment, victim: Victim) -> Iterator[str]:
    """The victim's configuration as it is before the test; every field put back afterwards."""
    answer = download(deployment, victim)
    assert answer.status_code == 200, answer.text
    only_template_lines(answer.text)
    yield answer.text
    plant(deployment, Server, victim.server_id, dns="1.1.1.1", address="injected1.vpn.test", name="Injected 1")
    plant(deployment, Peer, victim.peer_id, name="consola")


FIELDS = [("dns", "1.1.1.1"), ("address", "injected1.vpn.test")]


@pytest.mark.parametrize("brk", BREAKS.values(), ids=BREAKS.keys())
@pytest.mark.parametrize(("field", "good"), FIELDS, ids=[f for f, _ in FIELDS])
def test_an_admin_cannot_add_a_line_to_customers_configurations(
    deployment: Deployment, victim: Victim, clean: str, field: str, good: str, brk: str
) -> None:
    with admin(deployment) as http:
        before = http.get("/api/admin/servers").json()
        answer = http.patch(f"/api/admin/servers/{victim.server_id}", json={field: f"{good}{brk}{INJECTED}"})
        assert answer.status_code == 422, answer.text
        assert field in answer.json()["fields"], answer.text
        created = http.post(
            "/api/admin/servers",
            json={"name": "Injected 2", "address": "injected2.vpn.test", "tunnel_subnet": "10.72.0.0/24",
                  field: f"{good}{brk}{INJECTED}"},
        )  # fmt: skip
        assert created.status_code == 422 and field in created.json()["fields"], created.text
        assert http.get("/api/admin/servers").json() == before  # nothing half-written, no server made
    for answer in (download(deployment, victim), mirror(deployment, victim)):
        assert answer.status_code == 200, answer.text
        only_template_lines(answer.text)
        assert answer.text == clean


@pytest.mark.parametrize("brk", BREAKS.values(), ids=BREAKS.keys())
@pytest.mark.parametrize(("field", "good"), FIELDS, ids=[f for f, _ in FIELDS])
def test_a_bad_row_in_the_database_never_becomes_a_line(
    deployment: Deployment, victim: Victim, clean: str, field: str, good: str, brk: str
) -> None:
    """A value the API would refuse, already stored: the customer gets a Spanish refusal, the operator a log line
    naming the server and the field, and nobody gets the line."""
    plant(deployment, Server, victim.server_id, **{field: f"{good}{brk}{INJECTED}"})
    for answer in (download(deployment, victim), mirror(deployment, victim)):
        assert INJECTED not in answer.text
        assert answer.status_code == 409, answer.text
        assert answer.json() == {
            "message": "El servidor de este peer tiene un error de configuración: avise a soporte o cambie el peer "
            "de servidor.",
            "code": "server_misconfigured",
        }
    errors = [json.loads(line) for line in deployment.process.log().splitlines() if '"server_misconfigured"' in line]
    assert any(
        e["level"] == "ERROR" and e.get("server_id") == victim.server_id and e.get("field") == field for e in errors
    ), errors[-3:]


@pytest.mark.parametrize("name", ['consola"\r\nSet-Cookie: robado=1', "consola\u2028x", 'a";filename="evil.sh'])
def test_the_file_name_header_carries_no_injected_header(
    deployment: Deployment, victim: Victim, clean: str, name: str
) -> None:
    """The peer's name goes into `Content-Disposition`; a stored name with a quote or a line break must neither add a
    header nor change the file's name to something else."""
    plant(deployment, Peer, victim.peer_id, name=name)
    for answer in (download(deployment, victim), mirror(deployment, victim)):
        assert answer.status_code == 200, answer.text
        only_template_lines(answer.text)
        assert "set-cookie" not in answer.headers
        disposition = answer.headers["content-disposition"]
        assert not any(ch in disposition for ch in "\r\n\x00\u2028"), disposition
        fallback = disposition.split('filename="', 1)[1].split('"', 1)[0]
        assert fallback.endswith(".conf") and ";" not in fallback and "=" not in fallback, disposition
        assert "filename*=UTF-8''" in disposition, disposition
