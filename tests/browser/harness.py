"""The real control plane for the browser tests (webui/e2e), started once per run.

    uv run --frozen python -m tests.browser.harness

Fresh SQLite database in a temporary directory, migrated and seeded (an admin, customers, plans, two servers each
with a scripted agent, peers), `python -m controlplane serve` on a free loopback port serving the built webui/dist,
the fake captcha's siteverify endpoint, the fake QvaPay and Remesita gateways (their 'Pagar'/'Cancelar' pages
notify the control plane for real), and mail written to the outbox folder so a test can read a link from it.
When ready it prints ONE line of JSON (see `describe`) on stdout; it stops everything when its stdin closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from controlplane.db import utcnow
from controlplane.domain.accounts.models import Role, User
from controlplane.domain.invoices.models import Invoice, InvoiceMode, InvoiceStatus
from controlplane.domain.peers.models import Peer
from controlplane.domain.plans.models import Plan
from controlplane.domain.plans.service import add_plan
from controlplane.domain.servers.service import ServerInput
from controlplane.domain.usage.meter import hour_of
from controlplane.domain.usage.store import add_hours
from controlplane.services import build_services
from controlplane.settings import Settings
from protos import agent_pb2
from tests.browser.scripted_agent import ReportingNode, Reports, run_scripted_agent
from tests.fakes import qvapay, remesita
from tests.fakes.captcha import GOOD_TOKEN, SECRET, FakeCaptcha
from tests.fakes.control import ControlServer
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita
from tests.fakes.ws_proxy import WsProxy
from tests.multiprocess.cluster import SMALL_ARGON2

REPO = Path(__file__).resolve().parents[2]
ADMIN = ("jefa", "jefa-clave-segura-1")
# Customers: ana (peers, rooms owner), beto (rooms guest), carla (settings; her password changes), dani (peers
# screen only, so the change-server and regenerate scenarios do not disturb the others), eva (rooms guest: the
# rooms walk only, since the manager walk moves beto's peer), fran (the live socket scenarios).
CUSTOMERS = {
    "ana": {"password": "ana-clave-segura-1", "alias": "Ana", "peers": ["movil", "portatil"]},
    "beto": {"password": "beto-clave-segura-1", "alias": "Beto", "peers": ["consola"]},
    "carla": {"password": "carla-clave-segura-1", "alias": None, "peers": []},
    "dani": {"password": "dani-clave-segura-1", "alias": None, "peers": ["tablet"]},
    "eva": {"password": "eva-clave-segura-1", "alias": "Eva", "peers": ["sobremesa"]},
    # fran: the live socket scenarios (realtime.e2e.ts) regenerate her peer with the socket refused or cut.
    "fran": {"password": "fran-clave-segura-1", "alias": None, "peers": ["telefono"]},
    # gabi: her peer's configuration used on two devices (device-insight.e2e.ts, scripted stats reports).
    "gabi": {"password": "gabi-clave-segura-1", "alias": None, "peers": ["celular"]},
    # hugo: the layout and accessibility checks (layout.e2e.ts, a11y.e2e.ts): several peers, names as long as the
    # peer name rule allows (32 characters, no spaces to break at), one of them later used on two devices. No name
    # holds another customer's peer name: the manager's lists are searched by those.
    "hugo": {
        "password": "hugo-clave-segura-1",
        "alias": "Hugo",
        "peers": ["laptop-de-la-oficina-principal-1", "smartphone_de_mi_hermana_mayor_2", "tv", "xbox-del-salon"],
    },
    # ines: the everyday controls (everyday.e2e.ts): she renames her peer, copies its configuration, reads her
    # invoices and closes her other sessions, so nobody else's names or sessions change.
    "ines": {"password": "ines-clave-segura-1", "alias": None, "peers": ["movil-de-ines"]},
    # julia: the states a customer must understand (peer-states.e2e.ts): 'casa' on Santiago 1, whose agent the test
    # really stops, and 'viaje', moved to Santiago 1 while its agent holds its answers (a move that stays pending).
    # olga and pepe: a guest pass (guestpasses.e2e.ts): olga's room, the pass she buys, pepe's claim and his peer.
    "olga": {"password": "olga-clave-segura-1", "alias": "Olga", "peers": ["pc-de-olga"]},
    "pepe": {"password": "pepe-clave-segura-1", "alias": "Pepe", "peers": []},
    "julia": {
        "password": "julia-clave-segura-1",
        "alias": None,
        "peers": ["viaje", "casa"],
        "servers": {"casa": "Santiago 1"},
    },
    # kiko, lola, memo: the room lobby (lobby.e2e.ts). kiko owns a room and hosts games in it; his alias and his
    # peer's name are as long as the rules allow, with no spaces to break at (the lobby's cards on a 360 px phone).
    # lola is in kiko's room and announces nothing ("ninguno desde que entró"); memo owns another room.
    "kiko": {
        "password": "kiko-clave-segura-1",
        "alias": "Maximiliano_Fernandez_Castellano",
        "peers": ["pc-del-cuarto-de-maximiliano-001"],
    },
    "lola": {"password": "lola-clave-segura-1", "alias": "Lola", "peers": ["laptop-de-lola"]},
    "memo": {"password": "memo-clave-segura-1", "alias": "Memo", "peers": ["pc-de-memo"]},
    # nico: pause and resume (pause.e2e.ts), so nobody else's peer goes off its node.
    "nico": {"password": "nico-clave-segura-1", "alias": None, "peers": ["router-de-casa", "movil-de-nico"]},
    # rita and saul: the room owner's "move all my peers" (roommove.e2e.ts). rita's two peers on habana-1, saul's
    # three on cancun-1, the second server with rooms: in rita's room, cancun-1 is the one recommended.
    "rita": {"password": "rita-clave-segura-1", "alias": "Rita", "peers": ["pc-de-rita", "movil-de-rita"]},
    "saul": {
        "password": "saul-clave-segura-1",
        "alias": "Saul",
        "peers": ["saul-1", "saul-2", "saul-3"],
        "servers": {"saul-1": "cancun-1", "saul-2": "cancun-1", "saul-3": "cancun-1"},
    },
}
# Invoices seeded for the 'Facturas' page (seed_invoices): (customer, peer, plan, gateway, status, days ago). Pending
# ones are made now: the expiry job turns a pending invoice older than VPN_INVOICE_TTL_HOURS into an expired one.
INVOICES = [
    ("hugo", "tv", "Mensual", "qvapay", InvoiceStatus.FULFILLED, 40),
    ("hugo", "xbox-del-salon", "Trimestral", "remesita", InvoiceStatus.CANCELED, 3),
    ("hugo", "tv", "Anual", "qvapay", InvoiceStatus.PENDING, 0),
    ("ines", "movil-de-ines", "Mensual", "qvapay", InvoiceStatus.FULFILLED, 10),
    ("ines", "movil-de-ines", "Trimestral", "remesita", InvoiceStatus.PENDING, 0),
]
PLANS = [
    ("Mensual", 30 * 24, Decimal("5.00"), "Un dispositivo. Todos los servidores. Salas para jugar en LAN"),
    ("Trimestral", 90 * 24, Decimal("13.50"), "Un dispositivo. Todos los servidores. Ahorra un 10%"),
    ("Anual", 365 * 24, Decimal("48.00"), "Un dispositivo. Todos los servidores. Ahorra un 20%"),
]
SERVERS = [
    ServerInput(
        name="habana-1",
        address="habana-1.vpn.test",
        tunnel_subnet="10.61.0.0/24",
        ubication="La Habana",
        allow_partys=True,
    ),
    ServerInput(name="madrid-1", address="madrid-1.vpn.test", tunnel_subnet="10.62.0.0/24", ubication="Madrid"),
    # Named as staff name servers (not by host): the server peer-states.e2e.ts stops and holds.
    ServerInput(
        name="Santiago 1", address="santiago-1.vpn.test", tunnel_subnet="10.63.0.0/24", ubication="Santiago de Cuba"
    ),
    # The second server with rooms, where a room can move (roommove.e2e.ts); last, so the others keep their places.
    ServerInput(
        name="cancun-1",
        address="cancun-1.vpn.test",
        tunnel_subnet="10.64.0.0/24",
        ubication="Cancún",
        allow_partys=True,
    ),
]
CAPTCHA_SITE_KEY = "browser-test-site-key"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def environment(
    workdir: Path, port: int, captcha_url: str, gateways: tuple[FakeQvaPay, FakeRemesita]
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VPN_")}
    # No VPN_CLIENT_URL: it follows the bind, on a port other than the default, as a newcomer's does
    # (docs/deployment.md, client URL); the tests open it as 127.0.0.1, localhost and [::1].
    env.update(
        VPN_VAR_DIR=str(workdir / "var"),
        VPN_HTTP_BIND=f"127.0.0.1:{port}",
        VPN_GRPC_BIND=f"unix:{workdir / 'grpc.sock'}",
        VPN_PRODUCT_NAME="VPN Pruebas",
        VPN_SUPPORT_URL="https://soporte.vpn.test/",
        VPN_CAPTCHA_PROVIDER="hcaptcha",
        VPN_CAPTCHA_SITE_KEY=CAPTCHA_SITE_KEY,
        VPN_CAPTCHA_SECRET=SECRET,
        VPN_CAPTCHA_VERIFY_URL=captcha_url,
        VPN_WEBUI_DIST=str(REPO / "webui" / "dist"),
        # Long enough for a held move to be seen pending at every width (peer-states.e2e.ts).
        VPN_OPERATION_TIMEOUT="120",
        VPN_QVAPAY_APP_ID=qvapay.APP_ID,
        VPN_QVAPAY_APP_SECRET=qvapay.APP_SECRET,
        VPN_QVAPAY_BASE_URL=gateways[0].base_url,
        VPN_REMESITA_API_KEY=remesita.API_KEY,
        VPN_REMESITA_API_SECRET=remesita.API_SECRET,
        VPN_REMESITA_BUSINESS_UNIT_ID=remesita.BUSINESS_UNIT,
        VPN_REMESITA_BASE_URL=gateways[1].base_url,
        PYTHONPATH=str(REPO),
        # The small argon2 cost of the other layers' processes (tests/multiprocess/cluster.py): the seed and every
        # login hash at it, so a loaded CI machine does not spend the start limit on production-cost hashes.
        **SMALL_ARGON2,
    )
    return env


async def seed(settings: Settings) -> dict[str, str]:
    """Users, plans and servers straight into the database; returns the agents' credentials by server id."""
    services = build_services(settings)
    credentials: dict[str, str] = {}
    try:
        async with services.sessionmaker.begin() as db:
            await services.accounts.create_user(db, *ADMIN, Role.ADMIN)
            for username, spec in CUSTOMERS.items():
                await services.accounts.create_user(db, username, str(spec["password"]), Role.CUSTOMER)
            for order, (name, hours, price, description) in enumerate(PLANS):
                await add_plan(db, name, hours, price, description, sort_order=order)
            for data in SERVERS:
                server, credential = await services.servers.create(db, data)
                credentials[server.id] = credential
    finally:
        await services.close()
    return credentials


async def wait_until(check: Any, what: str, within: float = 30) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"timed out waiting for {what}")


async def place_peers(url: str, server_ids: list[str]) -> None:
    by_name = {data.name: sid for data, sid in zip(SERVERS, server_ids, strict=True)}
    """Aliases through the customer API, peers through the admin API (the real creation path, agents confirm)."""
    async with httpx.AsyncClient(base_url=url, timeout=20) as http:
        staff = (await http.post("/api/admin/login", json={"username": ADMIN[0], "password": ADMIN[1]})).json()
        staff_headers = {"Authorization": f"Bearer {staff['access']}"}

        async def agents_online() -> bool:
            servers = (await http.get("/api/admin/servers", headers=staff_headers)).json()
            return all(s["online"] for s in servers)

        await wait_until(agents_online, "the scripted agents to connect")
        for username, spec in CUSTOMERS.items():
            login = await http.post(
                "/api/client/login", json={"username": username, "password": spec["password"], "remember": False}
            )
            login.raise_for_status()
            headers = {"Authorization": f"Bearer {login.json()['access']}"}
            if spec["alias"]:
                (
                    await http.patch("/api/client/settings", headers=headers, json={"alias": spec["alias"]})
                ).raise_for_status()
            placed: dict[str, str] = spec.get("servers", {})  # type: ignore[assignment]
            for name in spec["peers"]:
                server = by_name[placed[name]] if name in placed else server_ids[0]
                answer = await http.post(
                    "/api/admin/peers",
                    headers=staff_headers,
                    json={"username": username, "name": name, "server": server, "days": 30},
                )
                answer.raise_for_status()

            async def settled(h: dict[str, str] = headers) -> bool:
                peers = (await http.get("/api/client/accounts/peers", headers=h)).json()
                return not any(p["processing"] for p in peers)

            await wait_until(settled, f"{username}'s peers to be applied")
            await http.post("/api/logout", json={"refresh": login.json()["refresh"]})


# Usage history for ana's 'movil' (usage.e2e.ts): written as the meter writes it, in the current UTC hour, so the
# month, the last 24 hours and the last 30 days all hold it. Counting from agents' reports is tested in tests/api.
USAGE = {"customer": "ana", "peer": "movil", "download": 1536 * 2**20, "upload": 200 * 2**20}


async def seed_usage(settings: Settings) -> None:
    services = build_services(settings)
    try:
        async with services.sessionmaker.begin() as db:
            peer = (
                await db.execute(
                    select(Peer)
                    .join(User, User.id == Peer.user_id)
                    .where(User.username == USAGE["customer"], Peer.name == USAGE["peer"])
                )
            ).scalar_one()
            hour = hour_of(utcnow())
            rx, tx = USAGE["upload"], USAGE["download"]
            await add_hours(
                db,
                [{"peer_id": peer.id, "hour": hour, "rx": rx, "tx": tx}],
                [{"server_id": peer.server_id, "hour": hour, "rx": rx, "tx": tx}],
            )
    finally:
        await services.close()


async def seed_invoices(settings: Settings) -> None:
    """The customers' purchases as if made through the gateways (INVOICES): paid ones with a transaction id."""
    services = build_services(settings)
    try:
        async with services.sessionmaker.begin() as db:
            plans = {plan.name: plan for plan in (await db.execute(select(Plan))).scalars()}
            for n, (username, peer_name, plan_name, gateway, status, days) in enumerate(INVOICES):
                peer = (
                    await db.execute(
                        select(Peer)
                        .join(User, User.id == Peer.user_id)
                        .where(User.username == username, Peer.name == peer_name)
                    )
                ).scalar_one()
                plan = plans[plan_name]
                when = utcnow() - timedelta(days=days, minutes=n)
                paid = status is InvoiceStatus.FULFILLED
                db.add(
                    Invoice(
                        remote_id=f"seed-{username}-{n}",
                        user_id=peer.user_id,
                        gateway=gateway,
                        mode=InvoiceMode.ADD_PLAN,
                        status=status,
                        plan_id=plan.id,
                        plan_name=plan.name,
                        validity_hours=plan.validity_hours,
                        amount=plan.price,
                        peer_id=peer.id,
                        peer_name=peer.name,
                        transaction_id=f"tx-{username}-{n}" if paid else None,
                        created=when,
                        paid_at=when if paid else None,
                        fulfilled_at=when if paid else None,
                        # A pending one keeps the page the gateway opened for it (Home offers to reopen it).
                        payment_url=None if paid else f"https://{gateway}.example/pay/seed-{username}-{n}",
                    )
                )
    finally:
        await services.close()


class NodeReports:
    """Reports the browser tests script, sent by the peer's server's scripted agent over its real gRPC stream
    (tests/browser/scripted_agent.py), as a node reports what WireGuard sees: POST /stats on `control_url` with
    {customer, peer, endpoint, latest_handshake} and optionally rx_bytes, tx_bytes (the peer by its owner and name;
    404 if unknown). Runs in a thread; the report is queued on the harness's loop, in the order of the requests.
    POST /discovery sends what the node's relay heard the peer announce (`discovery`).

    The same address drives the agents themselves, by server name ({"server": "Santiago 1"}): POST /stop ends the
    agent's stream for real (the control plane sees the node go offline), /start runs it again, /hold keeps it
    connected but has it keep its answers (operations stay pending), /release sends them. POST /refuse {server,
    customer, peer} has that server's agent answer the next change that adds the peer with a failure, as a node whose
    WireGuard refused it would (`REFUSED`)."""

    def __init__(
        self, settings: Settings, queues: dict[str, Reports], loop: asyncio.AbstractEventLoop, agents: ScriptedAgents
    ) -> None:
        self._settings = settings
        self._queues = queues
        self._agents = agents

        def on_post(path: str, body: dict[str, Any]) -> bool:
            if path == "/stats":
                return bool(asyncio.run_coroutine_threadsafe(self.send(body), loop).result(20))
            if path == "/discovery":
                return bool(asyncio.run_coroutine_threadsafe(self.discovery(body), loop).result(20))
            if path == "/refuse":
                return bool(asyncio.run_coroutine_threadsafe(self.refuse(body), loop).result(20))
            if path in ("/stop", "/start", "/hold", "/release"):
                call = agents.command(path.strip("/"), str(body.get("server", "")))
                return bool(asyncio.run_coroutine_threadsafe(call, loop).result(20))
            return False

        self._control = ControlServer(on_post)
        self.control_url = self._control.url

    async def _peer(self, body: dict[str, Any]) -> Any:
        """The peer named by {customer, peer}: its server, key and tunnel address (None if unknown)."""
        services = build_services(self._settings)
        try:
            async with services.sessionmaker() as db:
                row = (
                    await db.execute(
                        select(Peer.server_id, Peer.public_key, Peer.address)
                        .join(User, User.id == Peer.user_id)
                        .where(User.username == body.get("customer"), Peer.name == body.get("peer"))
                    )
                ).one_or_none()
        finally:
            await services.close()
        return None if row is None or row.server_id not in self._queues else row

    async def send(self, body: dict[str, Any]) -> bool:
        row = await self._peer(body)
        if row is None:
            return False
        stats = agent_pb2.PeerStats(
            public_key=row.public_key,
            endpoint=str(body.get("endpoint", "")),
            latest_handshake=int(body.get("latest_handshake", 0)),
            rx_bytes=int(body.get("rx_bytes", 0)),
            tx_bytes=int(body.get("tx_bytes", 0)),
        )
        self._queues[row.server_id].put_nowait([stats])
        return True

    async def refuse(self, body: dict[str, Any]) -> bool:
        row = await self._peer(body)
        return row is not None and self._agents.refuse(str(body.get("server", "")), row.public_key)

    async def discovery(self, body: dict[str, Any]) -> bool:
        """A discovery report from the peer's node, as its relay's recognition sums up what the peer announced
        (docs/agent-protocol.md, "Discovery report"): body {customer, peer, games: [{key, game, name, port, players,
        max_players, detail, seconds_ago}], packets, seconds_ago}. The games' sender is the peer's tunnel address;
        `packets` (default: one per game; 0 = the peer is not named as a sender) and `seconds_ago` say when the node
        last heard it. A game's `seconds_ago` stands for time passed: 20 makes an entry 10 s from leaving
        (never more than the host has been in its room: the lobby hides what was heard before it joined)."""
        row = await self._peer(body)
        if row is None:
            return False
        games = [
            agent_pb2.DiscoveredGame(
                sender=row.address,
                key=str(game.get("key") or f"{game.get('game', 'other')}:{game.get('port', 0)}"),
                game=str(game.get("game", "other")),
                name=str(game.get("name", "")),
                port=int(game.get("port", 0)),
                players=int(game.get("players", -1)),
                max_players=int(game.get("max_players", -1)),
                detail=str(game.get("detail", "")),
                seconds_ago=int(game.get("seconds_ago", 0)),
            )
            for game in body.get("games", [])
        ]
        packets = int(body.get("packets", len(games)))
        senders = [
            agent_pb2.DiscoverySender(address=row.address, packets=packets, seconds_ago=int(body.get("seconds_ago", 0)))
        ]
        report = agent_pb2.DiscoveryReport(games=games, senders=senders if packets else [])
        self._queues[row.server_id].put_nowait(report)
        return True

    def close(self) -> None:
        self._control.shutdown()


class ScriptedAgents:
    """The scripted agents, one task per server, that a test may stop, start again, hold or release (NodeReports)."""

    def __init__(self, grpc_bind: str, credentials: dict[str, str], queues: dict[str, Reports]) -> None:
        self._bind = grpc_bind
        self._credentials = credentials
        self._queues = queues
        self._ids = {data.name: sid for data, sid in zip(SERVERS, credentials, strict=True)}
        self.nodes = {sid: ReportingNode(queues[sid]) for sid in credentials}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        for sid in credentials:
            self._start(sid)

    def _start(self, sid: str) -> None:
        agent = run_scripted_agent(self._bind, sid, self._credentials[sid], node=self.nodes[sid])
        self._tasks[sid] = asyncio.create_task(agent)

    async def _stop(self, sid: str) -> None:
        task = self._tasks.pop(sid, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def refuse(self, server_name: str, public_key: str) -> bool:
        sid = self._ids.get(server_name)
        if sid is None:
            return False
        self.nodes[sid].refusing.add(public_key)
        return True

    async def command(self, what: str, server_name: str) -> bool:
        sid = self._ids.get(server_name)
        if sid is None:
            return False
        if what == "stop":
            await self._stop(sid)
        elif what == "start":
            if sid not in self._tasks:
                self._start(sid)
        elif what == "hold":
            self.nodes[sid].holding = True
        else:
            self.nodes[sid].release()
        return True

    async def close(self) -> None:
        for sid in list(self._tasks):
            await self._stop(sid)


def describe(
    url: str,
    workdir: Path,
    server_ids: list[str],
    gateways: dict[str, str],
    proxy: WsProxy,
    node_reports: str = "",
) -> dict[str, Any]:
    """What the browser tests get (webui/e2e/harness.ts has the same shape as a type)."""
    port = url.rsplit(":", 1)[1]
    return {
        "url": url,
        # The same control plane as http://localhost:PORT, and through a proxy on [::1]:PORT that can refuse, stall or
        # cut the live socket alone (tests/fakes/ws_proxy.py; POST /block, /unblock, /drop, /hold on `control`).
        "localhost_url": f"http://localhost:{port}",
        "socket_proxy": {"url": f"http://[::1]:{port}", "control": proxy.control_url},
        "admin": {"username": ADMIN[0], "password": ADMIN[1]},
        "customers": {name: {"username": name, **spec} for name, spec in CUSTOMERS.items()},
        "servers": [
            {"id": sid, "name": s.name, "address": s.address} for sid, s in zip(server_ids, SERVERS, strict=True)
        ],
        "plans": [{"name": p[0], "price": str(p[2])} for p in PLANS],
        "outbox": str(workdir / "var" / "outbox"),
        "captcha": {"site_key": CAPTCHA_SITE_KEY, "token": GOOD_TOKEN},
        "log": str(workdir / "controlplane.log"),
        # Payment pages the browser may open (everything else off the loopback address is refused).
        "gateways": gateways,
        "usage": USAGE,
        # POST /stats {customer, peer, endpoint, latest_handshake}: the peer's node reports it (NodeReports); POST
        # /discovery {customer, peer, games, packets, seconds_ago}: the games it hosts, heard by its node.
        "node_reports": {"control": node_reports},
    }


async def serve_until_stdin_closes(
    proc: subprocess.Popen[bytes],
    env: dict[str, str],
    credentials: dict[str, str],
    workdir: Path,
    gateways: dict[str, str],
    proxy: WsProxy,
) -> None:
    url = Settings.from_env(env).client_url
    log_path = workdir / "controlplane.log"

    async def serving() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"control plane exited:\n{log_path.read_text()}")
        with contextlib.suppress(httpx.TransportError):
            async with httpx.AsyncClient() as http:
                return (await http.get(f"{url}/api/client/status", timeout=1)).status_code == 200
        return False

    # Starting takes seconds alone, and well over 30 s on a two-core machine busy with other test layers.
    await wait_until(serving, "the control plane to serve", within=180)
    queues: dict[str, Reports] = {sid: asyncio.Queue() for sid in credentials}
    agents = ScriptedAgents(env["VPN_GRPC_BIND"], credentials, queues)
    reports = NodeReports(Settings.from_env(env), queues, asyncio.get_running_loop(), agents)
    try:
        server_ids = list(credentials)
        await place_peers(url, server_ids)
        await seed_usage(Settings.from_env(env))
        await seed_invoices(Settings.from_env(env))
        print(json.dumps(describe(url, workdir, server_ids, gateways, proxy, reports.control_url)), flush=True)
        # Until the test runner closes our stdin (or signals us).
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        reader = asyncio.create_task(asyncio.to_thread(sys.stdin.buffer.read))
        waiter = asyncio.create_task(stop.wait())
        await asyncio.wait({reader, waiter}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
    finally:
        reports.close()
        await agents.close()


def proxied_port() -> tuple[int, WsProxy]:
    """A port free on 127.0.0.1 (the control plane) and on [::1] (the socket proxy in front of it)."""
    while True:
        port = free_port()
        with contextlib.suppress(OSError):
            return port, WsProxy(("::1", port), ("127.0.0.1", port))


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="vpn-browser-"))
    port, proxy = proxied_port()
    try:
        with FakeCaptcha() as captcha, FakeQvaPay() as fake_qvapay, FakeRemesita() as fake_remesita:
            env = environment(workdir, port, captcha.url, (fake_qvapay, fake_remesita))
            gateways = {"qvapay": fake_qvapay.url, "remesita": fake_remesita.url}
            subprocess.run(
                [sys.executable, "-m", "controlplane", "migrate"], env=env, cwd=REPO, check=True, capture_output=True
            )
            credentials = asyncio.run(seed(Settings.from_env(env)))
            with (workdir / "controlplane.log").open("ab") as log:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "controlplane", "serve"],
                    env=env,
                    cwd=REPO,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            try:
                asyncio.run(serve_until_stdin_closes(proc, env, credentials, workdir, gateways, proxy))
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    finally:
        proxy.close()
        if os.environ.get("VPN_BROWSER_KEEP_TMP") == "1":
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
