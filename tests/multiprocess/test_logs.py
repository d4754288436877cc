"""The real control plane's log, as `python -m controlplane serve` writes it (uvicorn and websockets included), in
every format and level: no secret in it, and no line in it that a request wrote.

The in-process scan (tests/api/test_secrets.py) never sees uvicorn's own lines: its test client has no server.
Here the flow runs against real processes and the test reads what they wrote to stderr."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import websockets

from controlplane.crypto import SecretBox
from controlplane.payments import build_gateways
from controlplane.settings import Settings
from tests.multiprocess import nginx_site
from tests.multiprocess.cluster import ADMIN, HTTP_TIMEOUT, REPO, SMALL_ARGON2, ControlPlaneProcess, free_port
from tests.multiprocess.conftest import throwaway_database
from tests.multiprocess.scripted_agent import ScriptedAgent
from tests.multiprocess.test_two_processes import PASSWORD, admin_client, new_customer, new_server, next_push

VARIANTS = [("text", "DEBUG"), ("json", "DEBUG"), ("text", "INFO"), ("json", "INFO")]
FORGED = "FORJADO 2026-01-01 00:00:00,000 INFO controlplane.access [-]: GET /api/admin 200"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """One throwaway database (migrated, with the staff account) for every process of the module; no Redis."""
    workdir: Path = tmp_path_factory.mktemp("logs")
    with throwaway_database() as (database_url, _):
        settings = {
            "VPN_DATABASE_URL": database_url,
            "VPN_SECRET_KEY_FILE": str(workdir / "secret.key"),
            "VPN_ADMIN_PASSWORD": ADMIN[1],
            "VPN_REDIS_URL": "",
            **SMALL_ARGON2,
        }
        setup = ControlPlaneProcess("setup", workdir, settings)
        setup.cli("migrate")
        setup.cli("create-admin", ADMIN[0])
        yield workdir, settings


def started(shared: tuple[Path, dict[str, str]], fmt: str, level: str) -> ControlPlaneProcess:
    workdir, settings = shared
    process = ControlPlaneProcess(
        f"{fmt}-{level.lower()}", workdir, {**settings, "VPN_LOG_FORMAT": fmt, "VPN_LOG_LEVEL": level}
    )
    process.start()
    try:
        process.wait_ready(within=240)  # the machine may be busy with other layers
    except BaseException:
        process.stop()
        raise
    return process


@dataclass
class Secrets:
    values: list[str] = field(default_factory=list)

    def add(self, *values: str) -> None:
        self.values.extend(v for v in values if v)


async def _login(http: httpx.AsyncClient, path: str, username: str, password: str) -> tuple[str, str]:
    answer = await http.post(path, json={"username": username, "password": password, "remember": True})
    assert answer.status_code == 200, answer.text
    return answer.json()["access"], answer.json()["refresh"]


async def _flow(process: ControlPlaneProcess) -> list[str]:
    """Everything that carries a secret past the server: sockets with tokens (customer, staff, a bad one), token
    refresh, links with tokens in the path or the query string, a bearer header, an agent's credential."""
    found = Secrets()
    found.add(PASSWORD, ADMIN[1])
    username = await new_customer(process)
    async with httpx.AsyncClient(base_url=process.url, timeout=HTTP_TIMEOUT) as http:
        access, refresh = await _login(http, "/api/client/login", username, PASSWORD)
        staff_access, staff_refresh = await _login(http, "/api/admin/login", ADMIN[0], ADMIN[1])
        found.add(access, refresh, staff_access, staff_refresh)
        for token in (access, staff_access):
            async with websockets.connect(f"ws://127.0.0.1:{process.http_port}/ws?token={token}") as ws:
                assert (await next_push(ws, "auth"))["data"] is not None
        wrong = f"no-es-un-token-{secrets.token_urlsafe(16)}"
        found.add(wrong)
        async with websockets.connect(f"ws://127.0.0.1:{process.http_port}/ws?token={wrong}") as ws:
            assert (await next_push(ws, "auth"))["message"] == "Sesión inválida o expirada."
        renewed = await http.post("/api/refresh-token", json={"refresh": refresh})
        assert renewed.status_code == 200, renewed.text
        found.add(renewed.json()["access"], renewed.json()["refresh"])
        link_tokens = [secrets.token_urlsafe(32) for _ in range(4)]
        found.add(*link_tokens)
        assert (await http.get(f"/mirror/{link_tokens[0]}")).status_code == 404
        await http.get(f"/password-reset?token={link_tokens[1]}")
        await http.get(f"/verify-email?token={link_tokens[2]}")
        await http.get(f"/no-existe?token={link_tokens[3]}")
        me = await http.get("/api/client/verify-token", headers={"Authorization": f"Bearer {access}"})
        assert me.status_code == 200, me.text
        # Forged lines: an encoded newline, a Unicode line separator and an escape sequence in a path.
        forged = FORGED.replace(" ", "%20")
        await http.get("/api/no-existe%0A" + forged)
        await http.get("/api/no-existe%E2%80%A8" + forged + "%1B%5B2J")
        with contextlib.suppress(websockets.InvalidStatus):
            async with websockets.connect(f"ws://127.0.0.1:{process.http_port}/ws%0D%0A{forged}"):
                pass
        assert (await http.post("/api/logout", json={"refresh": renewed.json()["refresh"]})).status_code == 200
    admin = await admin_client(process)
    try:
        server_id, credential = await new_server(admin)
        found.add(credential)
        agent = ScriptedAgent(process.grpc_target, server_id, credential)
        agent.start()
        await agent.wait_full_state()
        await agent.stop()
    finally:
        await admin.aclose()
    return found.values


@pytest.mark.parametrize(("fmt", "level"), VARIANTS, ids=[f"{f}-{lvl.lower()}" for f, lvl in VARIANTS])
async def test_the_real_log_holds_no_secret_and_no_forged_line(
    shared: tuple[Path, dict[str, str]], fmt: str, level: str
) -> None:
    process = started(shared, fmt, level)
    try:
        planted = await _flow(process)
    finally:
        process.stop()  # every line is written once it has exited
    log = process.log()
    # The socket lines uvicorn writes are there (so they were scanned), with the token left out.
    assert "/ws?token=[redacted]" in log
    if level == "DEBUG":
        assert " DEBUG " in log or '"level": "DEBUG"' in log
    leaked = [secret for secret in planted if secret in log]
    assert not leaked, f"{len(leaked)} secrets in the {fmt}/{level} log"
    # Any viewer may break lines at \n, \r, \x85, U+2028...: none of those pieces may start like a record.
    lines = log.splitlines()
    assert not [line for line in lines if line.startswith("FORJADO")]
    assert "\x1b" not in log
    if fmt == "json":
        not_json = []
        # `serve` prints where the web client is on stdout (not a log record); the harness merges the two streams.
        for line in (line for line in lines if not line.startswith("Cliente web: ")):
            try:
                json.loads(line)
            except ValueError:
                not_json.append(line)
        assert not not_json, not_json[:5]


def _nginx_config(workdir: Path, port: int, redirect_port: int, process: ControlPlaneProcess) -> Path:
    """packaging/nginx-vpn.conf as shipped, with only what a test must change: loopback ports instead of 80/443
    (no certificate: plain HTTP), logs in `workdir`, and without the gRPC server block (agents are not what is
    logged here). Every change must apply, so a reworded example fails here rather than going untested."""
    site = (REPO / "packaging" / "nginx-vpn.conf").read_text()
    changes = [
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{process.http_port};"),
        ("server 127.0.0.1:50051;", f"server {process.grpc_target};"),
        ("    listen 80;\n", f"    listen 127.0.0.1:{redirect_port};\n"),
        ("    listen 443 ssl http2;\n", f"    listen 127.0.0.1:{port};\n"),
        ("/var/log/nginx/", f"{workdir}/"),
    ]
    for old, new in changes:
        assert old in site, f"packaging/nginx-vpn.conf no longer has {old!r}"
        site = site.replace(old, new)
    site = site[: site.index("# gRPC for node agents")]
    kept = [
        line
        for line in site.splitlines()
        if not re.match(r"\s*(listen \[::\]|ssl_|add_header Strict|brotli_static)", line)
    ]
    config = workdir / "nginx.conf"
    temp = "".join(
        f"  {kind}_temp_path {workdir}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    config.write_text(
        f"daemon off;\nworker_processes 1;\npid {workdir}/nginx.pid;\nerror_log {workdir}/error.log error;\n"
        f"events {{ worker_connections 64; }}\nhttp {{\n{temp}" + "\n".join(kept) + "\n}\n"
    )
    return config


async def _remesita_notification(process: ControlPlaneProcess) -> tuple[str, str]:
    """The path and query string Remesita is told to notify for a new invoice id (the control plane's own
    `notify_url`, its secret key included), and that key."""
    settings = Settings.from_env(process.env)
    async with httpx.AsyncClient() as unused:
        gateway = build_gateways(settings, unused, SecretBox.from_file(settings.secret_key_file))["remesita"]
        url = httpx.URL(gateway.notify_url(f"factura-{secrets.token_hex(8)}"))
    key = url.params["key"]
    assert len(key) >= 32
    return url.raw_path.decode(), key


async def test_the_shipped_nginx_example_logs_no_secret(shared: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """A real nginx with packaging/nginx-vpn.conf in front of a real control plane: its access log, and its error
    log once the control plane is down, hold no token of any kind."""
    process = started(shared, "text", "INFO")
    port, redirect_port = free_port(), free_port()
    planted: list[str] = []
    try:
        with nginx_site.running(_nginx_config(tmp_path, port, redirect_port, process), port):
            username = await new_customer(process)
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=HTTP_TIMEOUT) as http:
                access, refresh = await _login(http, "/api/client/login", username, PASSWORD)
                planted += [access, refresh]
                async with websockets.connect(f"ws://127.0.0.1:{port}/ws?token={access}") as ws:
                    assert (await next_push(ws, "auth"))["data"] is not None
                links = [secrets.token_urlsafe(32) for _ in range(4)]
                planted += links
                assert (await http.get(f"/mirror/{links[0]}")).status_code == 404
                assert (await http.get(f"/password-reset?token={links[1]}")).status_code == 200
                assert (await http.get(f"/verify-email?token={links[2]}")).status_code == 200
                me = await http.get("/api/client/verify-token", headers={"Authorization": f"Bearer {access}"})
                assert me.status_code == 200
                # Remesita's payment notification: the invoice's secret key is in the query string. The control
                # plane read it whole (a right key for an invoice it does not know: 404, not 401 for a wrong key).
                notified, key = await _remesita_notification(process)
                planted.append(key)
                answer = await http.post(notified, json={"ref": "pago-1"})
                assert answer.status_code == 404 and answer.json()["code"] == "invoice_not_found", answer.text
                # A link followed over plain http is redirected, and logged, by the other server block.
                moved = await http.get(f"http://127.0.0.1:{redirect_port}/password-reset?token={links[3]}")
                assert moved.status_code == 301
                # The control plane goes down: nginx's error log names the failed requests.
                process.stop()
                down = [secrets.token_urlsafe(32) for _ in range(3)]
                planted += down
                assert (await http.get(f"/mirror/{down[0]}")).status_code == 502
                assert (await http.get(f"/password-reset?token={down[1]}")).status_code == 502
                with contextlib.suppress(websockets.InvalidStatus):
                    async with websockets.connect(f"ws://127.0.0.1:{port}/ws?token={down[2]}"):
                        pass
                notified_down, key = await _remesita_notification(process)
                planted.append(key)
                assert (await http.post(notified_down, json={"ref": "pago-2"})).status_code == 502
                assert (await http.get("/api/client/plans")).status_code == 502
    finally:
        process.stop()
    access_log = (tmp_path / "vpn.access.log").read_text()
    error_log = (tmp_path / "error.log").read_text()
    assert '"GET /ws?[query] HTTP/1.1" 101' in access_log
    assert '"GET /mirror/[token] HTTP/1.1" 404' in access_log
    assert '"GET /password-reset?[query] HTTP/1.1" 301' in access_log
    for path, status in ((notified, 404), (notified_down, 502)):
        assert f'"POST {path.split("?")[0]}?[query] HTTP/1.1" {status}' in access_log
    assert "connect() failed" in error_log  # the outage is in the error log, through a path without secrets
    leaked = {name: [s for s in planted if s in text] for name, text in (("access", access_log), ("error", error_log))}
    assert leaked == {"access": [], "error": []}
