"""A newcomer's first minutes: clone the repository, `make run` with nothing set but a free port and a folder, and
the demo works as a product (README, "What you see").

The clone installs into itself (uv sync, npm ci, the Vite build) from the machine's uv and npm caches, as a
newcomer's second project would. What is checked is what the newcomer would click: the demo customer's active peer
on an online node and its configuration, live traffic figures on the socket (from 127.0.0.1 and from localhost), a
purchase that goes through the fake gateway's payment page and comes back paid, and the landing script sent
compressed. This layer runs as root with wireguard-go, so the demo's node is the real agent in its own namespace,
with a real handshake from the demo client; after Ctrl+C nothing of it is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from controlplane.demo.data import DEMO_ADMIN, DEMO_CUSTOMER, DEMO_SERVER
from controlplane.wgkeys import public_key_of

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 900  # seconds: installing and building from warm caches on a busy two-core machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Demo:
    def __init__(self, clone: Path, port: int, log: Path) -> None:
        self.clone, self.port, self.log = clone, port, log
        self.url = f"http://127.0.0.1:{port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def namespaces(self) -> list[str]:
        """The network namespaces the demo says it made for its real agent and its demo client."""
        return re.findall(r"vpn-demo-\d+-[0-9a-f]+-(?:node|client)", self.output())


def _leftovers(namespaces: list[str]) -> list[str]:
    """Which of the demo's namespaces and WireGuard sockets still exist."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout.split()
    short_ids = {name.split("-")[3] for name in namespaces}
    sockets = [p.name for i in short_ids for p in Path("/var/run/wireguard").glob(f"vd{i}*")]
    return [name for name in namespaces if name in listed] + sockets


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    work = tmp_path_factory.mktemp("newcomer")
    clone = work / "repo"
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True)
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "--quiet", commit.stdout.strip()],
                   cwd=clone, check=True)  # fmt: skip
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VPN_", "VIRTUAL_ENV", "UV_PROJECT"))}
    env |= {"VPN_HTTP_BIND": f"127.0.0.1:{port}", "VPN_VAR_DIR": str(work / "var")}
    env["PATH"] = f"{Path.home() / '.local' / 'bin'}:{env.get('PATH', '')}"
    log = work / "make-run.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["make", "--no-print-directory", "run"], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    running = Demo(clone, port, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while "Application startup complete" not in running.output():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"make run did not start (exit {process.poll()}):\n{running.output()[-4000:]}")
            time.sleep(1)
        yield running
    finally:
        # Ctrl+C in the terminal: SIGINT to the whole foreground group (make, uv, python); pressed twice at most.
        for _ in range(2):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(20)
                break
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        pytest.fail(f"make run did not end on Ctrl+C:\n{running.output()[-3000:]}")
    made = running.namespaces()
    assert made, running.output()[-3000:]
    left = _leftovers(made)
    if left:
        from controlplane.demo.real_node import remove_stale_namespaces

        remove_stale_namespaces()
        pytest.fail(f"after Ctrl+C the demo left {left}")


def _login(http: httpx.Client, path: str, credentials: tuple[str, str]) -> dict[str, str]:
    answer = http.post(path, json={"username": credentials[0], "password": credentials[1], "remember": False})
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['access']}"}


def _eventually(check, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.5)


def test_the_printed_logins_work_and_the_customer_has_a_working_peer_on_an_online_node(demo: Demo) -> None:
    output = demo.output()
    assert f"{demo.url}/login" in output and f"'{DEMO_CUSTOMER[1]}'" in output and f"'{DEMO_ADMIN[1]}'" in output
    with httpx.Client(base_url=demo.url, timeout=30) as http:
        auth = _login(http, "/api/client/login", DEMO_CUSTOMER)
        peers = _eventually(
            lambda: [p for p in http.get("/api/client/accounts/peers", headers=auth).json() if not p["processing"]]
        )
        assert peers, "the demo peer is still waiting for its node"
        peer = peers[0]
        assert peer["active"] and peer["server"]["name"] == DEMO_SERVER and peer["party"] is not None
        config = http.get(f"/api/client/accounts/peers/{peer['id']}", headers=auth)
        assert config.status_code == 200
        assert "[Interface]" in config.text and "PrivateKey" in config.text and "Endpoint" in config.text

        staff = _login(http, "/api/admin/login", DEMO_ADMIN)
        servers = http.get("/api/admin/servers", headers=staff).json()
        server = next(s for s in servers if s["name"] == DEMO_SERVER)
        assert server["online"] and server["backend"] == "userspace"  # the real agent, labelled as what it is

        assert http.get("/api/client/advertisements", headers=auth).json()  # the home's announcement
        assert http.get("/api/client/agent", headers=auth).status_code == 200  # the client release


def test_the_real_agent_has_a_recent_handshake_with_the_demo_customers_configuration(demo: Demo) -> None:
    with httpx.Client(base_url=demo.url, timeout=30) as http:
        auth = _login(http, "/api/client/login", DEMO_CUSTOMER)
        peer = next(p for p in http.get("/api/client/accounts/peers", headers=auth).json() if p["name"] == "movil")
        config = http.get(f"/api/client/accounts/peers/{peer['id']}", headers=auth).text
    private_key = re.search(r"^PrivateKey\s*=\s*(\S+)", config, re.MULTILINE)
    assert private_key and "Endpoint = 10.213.0.1:" in config, config
    public_key = public_key_of(private_key.group(1))
    node_ns = next(name for name in demo.namespaces() if name.endswith("-node"))
    interface = f"vd{node_ns.split('-')[3]}n"

    def handshake() -> int:
        shown = subprocess.run(
            ["ip", "netns", "exec", node_ns, "wg", "show", interface, "latest-handshakes"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        seen = dict(line.split("\t") for line in shown.stdout.splitlines() if "\t" in line)
        return int(seen.get(public_key, 0))

    latest = _eventually(lambda: handshake() > time.time() - 180, timeout=60)
    assert latest, f"no recent handshake of the demo peer on {interface} in {node_ns} ({handshake()})"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_the_live_socket_works_from_both_loopback_names_and_carries_traffic_figures(demo: Demo, host: str) -> None:
    with httpx.Client(base_url=demo.url, timeout=30) as http:
        token = _login(http, "/api/client/login", DEMO_CUSTOMER)["Authorization"].split()[1]
    origin = f"http://{host}:{demo.port}"
    with connect(f"ws://{host}:{demo.port}/ws?token={token}", origin=origin, open_timeout=20) as ws:  # type: ignore[arg-type]
        hello = json.loads(ws.recv(timeout=20))
        assert hello["type"] == "auth" and hello["data"]["username"] == DEMO_CUSTOMER[0]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] == "peer_stats":
                figures = message["data"]["peers"][0]
                assert figures["latest_handshake"] > time.time() - 60 and figures["tx_bytes"] > 0
                return
        pytest.fail("no traffic figures within 30 s")


def test_a_purchase_goes_through_the_fake_gateway_page_and_comes_back_paid(demo: Demo) -> None:
    with httpx.Client(base_url=demo.url, timeout=30) as http:
        auth = _login(http, "/api/client/login", DEMO_CUSTOMER)
        plan = http.get("/api/client/plans").json()[0]
        opened = http.put(
            "/api/client/invoices", headers=auth, json={"mode": "new_peer", "plan": plan["id"], "peer": "portatil"}
        )
        assert opened.status_code == 200, opened.text
        payment_url = opened.json()["payment_url"]
        assert payment_url.startswith("http://127.0.0.1:") and not payment_url.startswith(demo.url)
        page = http.get(payment_url)
        assert page.status_code == 200 and "Pagar" in page.text and plan["price"] in page.text
        paid = http.post(payment_url.split("?")[0] + "/paid")  # the 'Pagar' button
        assert paid.status_code == 303
        back = http.get(paid.headers["location"])  # the gateway sends the browser back to the control plane
        assert back.status_code == 302
        assert back.headers["location"].startswith(f"{demo.url}/dashboard/payment?status=success")
        remote_id = opened.json()["remote_id"]
        status = _eventually(
            lambda: http.get(f"/api/client/invoices/{remote_id}", headers=auth).json()["status"] == "fulfilled"
        )
        assert status, http.get(f"/api/client/invoices/{remote_id}", headers=auth).text
        names = {p["name"] for p in http.get("/api/client/accounts/peers", headers=auth).json()}
        assert "portatil" in names


def test_the_landing_script_is_served_precompressed(demo: Demo) -> None:
    with httpx.Client(base_url=demo.url, timeout=30) as http:
        index = http.get("/")
        assert index.headers["cache-control"] == "no-cache"
        script = re.search(r'<script[^>]+src="(/assets/[^"]+\.js)"', index.text)
        assert script, index.text
        path = script.group(1)
        with http.stream("GET", path, headers={"Accept-Encoding": "br, gzip"}) as answer:
            body = b"".join(answer.iter_raw())
        assert answer.headers["content-encoding"] == "br" and answer.headers["vary"] == "Accept-Encoding"
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        built = demo.clone / "webui" / "dist" / path.lstrip("/")
        assert body == built.with_name(built.name + ".br").read_bytes()
        assert len(body) < built.stat().st_size / 2
