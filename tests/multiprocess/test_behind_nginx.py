"""The real control plane behind the shipped nginx example (packaging/nginx-vpn.conf) with TLS, as an operator
installs it (docs/deployment.md): through every location that proxies, the control plane sees the customer's own
address and nginx's request id; /metrics is refused however it is spelled; no spelling of a mirror link the control
plane serves leaves its token in nginx's logs.

Customers connect from 127.0.0.2 (the client socket is bound to it); nginx reaches the control plane from 127.0.0.1,
the address VPN_TRUSTED_PROXIES names. An example whose headers do not reach the control plane makes every
customer 127.0.0.1: one address's rate limits fall on everyone, the audit names nginx, and /metrics believes the
internet is local."""

from __future__ import annotations

import json
import re
import secrets
import ssl
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import websockets
from redis import Redis

from tests.conftest import skip_or_fail
from tests.multiprocess import nginx_site
from tests.multiprocess.cluster import ADMIN, HTTP_TIMEOUT, SMALL_ARGON2, ControlPlaneProcess, free_port
from tests.multiprocess.conftest import REDIS_URL, throwaway_database
from tests.multiprocess.test_two_processes import next_push

CUSTOMER_ADDRESS = "127.0.0.2"
METRICS_SERIES = "vpn_http_request_duration_seconds"


@dataclass
class Site:
    process: ControlPlaneProcess
    port: int  # nginx's HTTPS port
    folder: Path  # nginx's logs
    tls: ssl.SSLContext  # trusts the site's self-signed certificate
    redis: Redis
    prefix: str

    def client(self, user_agent: str) -> httpx.AsyncClient:
        """HTTPS through nginx from the customer's address; `user_agent` names the request in nginx's log."""
        transport = httpx.AsyncHTTPTransport(local_address=CUSTOMER_ADDRESS, verify=self.tls)
        return httpx.AsyncClient(
            base_url=f"https://127.0.0.1:{self.port}",
            transport=transport,
            timeout=HTTP_TIMEOUT,
            headers={"User-Agent": user_agent},
        )

    def url(self, path: str) -> httpx.URL:
        """`path` sent exactly as written (httpx would read `//mirror/...` as a host name)."""
        return httpx.URL(f"https://127.0.0.1:{self.port}").copy_with(raw_path=path.encode())

    def logged(self, user_agent: str, count: int = 1) -> list[str]:
        """nginx's access log lines of the requests sent with `user_agent`, once there are `count` of them. nginx
        writes a line after its answer has gone out, so the client may read the answer first: wait for it."""
        give_up = time.monotonic() + 10
        while True:
            lines = [line for line in self.access_log().splitlines() if f'"{user_agent}"' in line]
            if len(lines) >= count or time.monotonic() > give_up:
                return lines
            time.sleep(0.05)

    def nginx_request_id(self, user_agent: str) -> str:
        """The request id nginx logged (vpn_private's last field) for the one request sent with `user_agent`."""
        lines = self.logged(user_agent)
        assert len(lines) == 1, lines
        return lines[0].rsplit(" ", 1)[1]

    def access_log(self) -> str:
        return (self.folder / "vpn.access.log").read_text()

    def limited_addresses(self, counter: str) -> set[str]:
        """The addresses the control plane counts under a rate limiter's `counter` (`ws:ip`, `mirror-miss:ip`)."""
        head = f"{self.prefix}rl:{counter}:"
        return {key.decode().removeprefix(head) for key in self.redis.scan_iter(match=f"{head}*")}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    try:
        redis = Redis.from_url(REDIS_URL, socket_timeout=5)
        redis.ping()
    except Exception as exc:
        skip_or_fail(f"Redis not reachable at {REDIS_URL}: {exc}")
    folder: Path = tmp_path_factory.mktemp("behind-nginx")
    prefix = f"vpn-nginx-{uuid.uuid4().hex[:8]}:"
    with throwaway_database() as (database_url, _):
        process = ControlPlaneProcess(
            "behind-nginx",
            folder,
            {
                "VPN_DATABASE_URL": database_url,
                "VPN_REDIS_URL": REDIS_URL,
                "VPN_REDIS_PREFIX": prefix,
                "VPN_SECRET_KEY_FILE": str(folder / "secret.key"),
                "VPN_ADMIN_PASSWORD": ADMIN[1],
                # As packaging/controlplane.env.example: nginx on this host is the one proxy believed.
                "VPN_TRUSTED_PROXIES": "127.0.0.1,::1",
                "VPN_METRICS_TOKEN": "",
                **SMALL_ARGON2,
            },
        )
        process.cli("migrate")
        process.cli("create-admin", ADMIN[0])
        process.start()
        try:
            process.wait_ready(within=240)
            certificate = nginx_site.self_signed(folder)
            config, port, _ = nginx_site.render(folder, f"127.0.0.1:{process.http_port}", certificate)
            tls = ssl.create_default_context(cafile=str(certificate.cert))
            with nginx_site.running(config, port):
                yield Site(process, port, folder, tls, redis, prefix)
        finally:
            process.stop()
            for key in redis.scan_iter(match=f"{prefix}*"):
                redis.delete(key)


async def _admin_token(site: Site) -> str:
    async with site.client("prueba-login") as http:
        answer = await http.post("/api/admin/login", json={"username": ADMIN[0], "password": ADMIN[1]})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access"])


async def test_the_control_plane_sees_the_customers_address_and_nginxs_request_id_everywhere(site: Site) -> None:
    token = await _admin_token(site)
    # `location /`: the audit log names who did it, from where (docs/api.md, "audit").
    async with site.client("prueba-raiz") as http:
        plan = await http.post(
            "/api/admin/plans",
            json={"name": f"plan-{uuid.uuid4().hex[:6]}", "validity_hours": 720, "price": "100.00"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert plan.status_code == 201, plan.text
    async with site.client("prueba-auditoria") as http:
        audit = await http.get("/api/admin/audit", headers={"Authorization": f"Bearer {token}"})
    entry = next(item for item in audit.json()["items"] if item["action"].startswith("plan."))
    assert entry["ip_address"] == CUSTOMER_ADDRESS
    assert plan.headers["X-Request-ID"] == site.nginx_request_id("prueba-raiz")

    # `location = /ws`: the socket's handshakes are counted per address (one address must not close everyone's).
    async with websockets.connect(
        f"wss://127.0.0.1:{site.port}/ws?token={token}",
        ssl=site.tls,
        local_addr=(CUSTOMER_ADDRESS, 0),
        user_agent_header="prueba-ws",
    ) as ws:
        assert (await next_push(ws, "auth"))["data"] is not None
    assert site.limited_addresses("ws:ip") == {CUSTOMER_ADDRESS}
    ws_request_id = site.nginx_request_id("prueba-ws")
    app_ids = {json.loads(line).get("request_id") for line in site.process.log().splitlines() if "WebSocket" in line}
    assert ws_request_id in app_ids

    # The location of the links with secrets in their URL: mirror links, reset and verification links, payments.
    async with site.client("prueba-mirror") as http:
        mirror = await http.get(f"/mirror/{secrets.token_urlsafe(32)}")
    assert mirror.status_code == 404 and mirror.json()["code"] == "mirror_not_found", mirror.text
    assert site.limited_addresses("mirror-miss:ip") == {CUSTOMER_ADDRESS}
    assert mirror.headers["X-Request-ID"] == site.nginx_request_id("prueba-mirror")
    for name, method, path in (
        ("prueba-reset", "GET", f"/password-reset?token={secrets.token_urlsafe(32)}"),
        ("prueba-pagos", "POST", f"/api/payments/remesita/factura-{uuid.uuid4().hex[:8]}?key=x"),
    ):
        async with site.client(name) as http:
            answer = await http.request(method, path, json={} if method == "POST" else None)
        assert answer.status_code < 500, answer.text
        assert answer.headers["X-Request-ID"] == site.nginx_request_id(name), path


@pytest.mark.parametrize("path", ["/metrics", "/metrics/", "//metrics", "/%6Detrics", "/metrics?x=1", "/metrics%2F"])
async def test_metrics_are_refused_through_nginx_however_spelled(site: Site, path: str) -> None:
    name = f"prueba-metrics-{uuid.uuid4().hex[:6]}"
    async with site.client(name) as http:
        answer = await http.get(site.url(path))
    assert answer.status_code == 404, answer.text
    assert METRICS_SERIES not in answer.text
    # A Prometheus on the same host, scraping the process directly, still reads them.
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as local:
        direct = await local.get(f"{site.process.url}/metrics")
    assert direct.status_code == 200 and METRICS_SERIES in direct.text


# Every spelling of a mirror link's path that the control plane serves as one (nginx passes the path as it came).
MIRROR_SPELLINGS = ["/mirror/{}", "//mirror/{}", "/%6Dirror/{}", "/%6dirror/{}", "/mirror%2F{}"]


async def test_no_spelling_of_a_mirror_link_leaves_its_token_in_nginxs_logs(site: Site, tmp_path: Path) -> None:
    planted: list[str] = []
    async with site.client("prueba-espejo") as http:
        for spelling in MIRROR_SPELLINGS:
            token = secrets.token_urlsafe(32)
            planted.append(token)
            answer = await http.get(site.url(spelling.format(token)))
            # The control plane took it for a mirror link (an unknown one), not for a page of the web client.
            assert answer.status_code == 404 and answer.json()["code"] == "mirror_not_found", spelling
    assert len(site.logged("prueba-espejo", len(MIRROR_SPELLINGS))) == len(MIRROR_SPELLINGS)
    # The same through an nginx whose control plane is down: its error log names the failed requests.
    certificate = nginx_site.self_signed(tmp_path)
    config, port, _ = nginx_site.render(tmp_path, f"127.0.0.1:{free_port()}", certificate)
    down = Site(site.process, port, tmp_path, ssl.create_default_context(cafile=str(certificate.cert)), site.redis, "")
    with nginx_site.running(config, port):
        async with down.client("prueba-caido") as http:
            for spelling in MIRROR_SPELLINGS:
                token = secrets.token_urlsafe(32)
                planted.append(token)
                assert (await http.get(down.url(spelling.format(token)))).status_code == 502, spelling
            assert (await http.get("/api/client/plans")).status_code == 502
    error_log = (tmp_path / "error.log").read_text()
    assert "connect() failed" in error_log  # the outage shows, through a path without a secret
    logs = {"access": site.access_log() + down.access_log(), "error": error_log}
    assert re.search(r'"GET /mirror/\[token\] HTTP/1.1" 404', logs["access"])
    leaked = {name: [token for token in planted if token in text] for name, text in logs.items()}
    assert leaked == {"access": [], "error": []}


@pytest.mark.parametrize(
    "headers",
    [{"Host": "vpn_http"}, {"Host": nginx_site.NAME}, {"X-Forwarded-Proto": "https"}, {"X-Real-IP": "203.0.113.9"}],
    ids=["upstream-name", "site-name", "forwarded-proto", "real-ip"],
)
def test_the_control_plane_refuses_metrics_to_whatever_came_through_a_proxy(
    site: Site, headers: dict[str, str]
) -> None:
    """A proxy on this host connects from loopback like a local scraper: even one that forwards no address (the
    example's old locations sent only Host, nginx's default `vpn_http`) must not be taken for the scraper."""
    answer = httpx.get(f"{site.process.url}/metrics", headers=headers, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 404 and METRICS_SERIES not in answer.text
    assert answer.json()["message"] == "No encontrado."
