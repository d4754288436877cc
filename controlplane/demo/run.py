"""`python -m controlplane demo` (what `make run` runs): the whole product on one machine, for a first look.

Migrates, loads the demo data the first time, starts the fake QvaPay and Remesita on free loopback ports, serves the
control plane with the agents' gRPC on a unix socket in the var folder and a node connected to it: the real agent in
a network namespace when it can (controlplane/demo/real_node.py), else a simulated one. It refuses to start when the
settings look like production (docs/deployment.md, "The demo"): the demo brings fake gateways, a throwaway node and
published passwords, none of which may meet real customers.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
from sqlalchemy.engine import make_url

from controlplane.demo.data import (
    DEMO_CUSTOMER,
    SIMULATED_ADDRESS,
    DemoServer,
    Login,
    demo_server,
    load_demo,
    login_states,
    logins,
)
from controlplane.demo.gateways import gateway_settings
from controlplane.demo.node import run_simulated_node
from controlplane.demo.qvapay import FakeQvaPay
from controlplane.demo.real_node import NODE_ADDRESS, DemoNetwork, remove_stale_namespaces, unavailable_reason
from controlplane.demo.remesita import FakeRemesita
from controlplane.domain.servers.addresses import node_address
from controlplane.settings import DEFAULT_VAR_DIR, Settings, client_url_for_bind
from controlplane.wgkeys import generate_keypair, public_key_of

# Variables that only a real deployment sets: the demo brings its own fakes and writes mail to the outbox folder.
PRODUCTION_ONLY = (
    "QVAPAY_APP_ID",
    "QVAPAY_APP_SECRET",
    "REMESITA_API_KEY",
    "REMESITA_API_SECRET",
    "REMESITA_BUSINESS_UNIT_ID",
    "SMTP_URL",
    "CAPTCHA_SECRET",
    "GRPC_TLS_CERT",
    "GRPC_TLS_KEY",
)


class ProductionRefused(Exception):
    """The settings look like production; the message lists why, one reason a line."""


def production_signs(settings: Settings, env: Mapping[str, str]) -> list[str]:
    """Why these settings look like production (empty: the demo may run)."""
    signs = []
    if not settings.database_url.startswith("sqlite"):
        signs.append("VPN_DATABASE_URL no es SQLite (la demostración usa su propia base SQLite en VPN_VAR_DIR)")
    for name in PRODUCTION_ONLY:
        if env.get(f"VPN_{name}", "").strip():
            signs.append(f"VPN_{name} está definida (la demostración usa pasarelas, correo y agentes de prueba)")
    if not _loopback(settings.http_bind.rpartition(":")[0]):
        signs.append(f"VPN_HTTP_BIND={settings.http_bind} no es una dirección local (127.0.0.1, ::1, localhost)")
    grpc_bind = env.get("VPN_GRPC_BIND", "").strip()
    if grpc_bind and not grpc_bind.startswith("unix:") and not _loopback(grpc_bind.rpartition(":")[0]):
        signs.append(f"VPN_GRPC_BIND={grpc_bind} no es una dirección local")
    client = env.get("VPN_CLIENT_URL", "").strip()
    if client and (client.startswith("https:") or not _loopback(urlsplit(client).hostname or "")):
        signs.append(f"VPN_CLIENT_URL={client} es una dirección pública")
    return signs


def _loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def demo_settings(env: Mapping[str, str], qvapay: FakeQvaPay, remesita: FakeRemesita) -> Settings:
    """The environment's settings, pointed at the fakes; the agents' gRPC is a unix socket in the var folder unless
    set (a fixed TCP port would clash with anything else on the machine)."""
    settings = Settings.from_env(env)
    signs = production_signs(settings, env)
    if signs:
        raise ProductionRefused("\n".join(f"  - {sign}" for sign in signs))
    changes = gateway_settings(qvapay, remesita, timeout=10.0)
    socket = f"unix:{Path(env.get('VPN_VAR_DIR', str(DEFAULT_VAR_DIR))).resolve() / 'agent.sock'}"
    if not env.get("VPN_GRPC_BIND", "").strip():
        changes["grpc_bind"] = changes["grpc_public_url"] = socket
    elif not settings.grpc_bind.startswith("unix:"):
        # A TCP bind (on loopback: anything else is refused above) is not reachable from the real node's namespace,
        # which has a 127.0.0.1 of its own: the node dials this socket, served besides the bind.
        changes["grpc_local_socket"] = socket
    return msgspec.structs.replace(settings, **changes)


def node_control_url(settings: Settings) -> str:
    """What the demo's real node, in its own network namespace, dials: a unix socket, whatever VPN_GRPC_BIND says."""
    return settings.grpc_local_socket or settings.grpc_public_url


def _node_key(secret_key_file: Path) -> str:
    """The simulated node's WireGuard public key, the same on every start (its private key is kept, 0600, beside
    the secret key file), so the customer's downloaded configuration keeps working after a restart."""
    path = secret_key_file.with_name("demo-node.key")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(generate_keypair()[0])
    return public_key_of(path.read_text().strip())


def run_demo(env: Mapping[str, str] | None = None) -> None:
    from controlplane.migrate import upgrade

    env = os.environ if env is None else env
    with FakeQvaPay() as qvapay, FakeRemesita() as remesita:
        settings = demo_settings(env, qvapay, remesita)
        var_dir = Path(env.get("VPN_VAR_DIR", str(DEFAULT_VAR_DIR))).resolve()
        var_dir.mkdir(parents=True, exist_ok=True)
        upgrade(settings.database_url)
        reason = unavailable_reason(env)
        network = None
        if reason is None:
            remove_stale_namespaces()
            network = DemoNetwork(var_dir)
        try:
            runner = asyncio.Runner()
            with contextlib.suppress(KeyboardInterrupt):
                runner.run(_serve(settings, var_dir, qvapay, remesita, network, reason))
        finally:
            # Also on Ctrl+C and on a failure at start: the namespaces, the agent and its wireguard-go go away. A
            # second Ctrl+C meanwhile must not cut that short (it left namespaces behind); each step is bounded.
            if network is not None:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                network.close()
    # Ctrl+C: uvicorn's shutdown has already closed the database and stopped the agents' server. What may be left is
    # the node stream's last write waiting on the closed pool: cancelling it (Runner.close) could wait forever, and
    # its database thread is not a daemon. The demo ends here instead of hanging in the terminal.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@dataclass(frozen=True)
class DemoStart:
    """What a start found in the database: whether it loaded the demo data, the demo server (None: gone) and what
    became of the demo accounts."""

    loaded: bool
    server: DemoServer | None
    logins: Mapping[str, Login]


async def prepare(settings: Settings, var_dir: Path, node_endpoint: str) -> DemoStart:
    """Load the demo data the first time, find the demo server and point it at this start's node, and check the
    demo accounts' published passwords."""
    from controlplane.services import build_services

    services = build_services(settings)
    try:
        loaded = await load_demo(services, var_dir)
        return DemoStart(loaded, await demo_server(services, var_dir, node_endpoint), await login_states(services))
    finally:
        await services.close()


def reset_hint(settings: Settings, var_dir: Path) -> str:
    """How to start the demo over with fresh demo data: its database goes (with the var folder when it lives there)."""
    database = Path(make_url(settings.database_url).database or "").resolve()
    if database.is_relative_to(var_dir):
        return f"pare la demostración (Ctrl+C) y borre la carpeta {var_dir}"
    return f"pare la demostración (Ctrl+C) y borre la base {database}"


def banner(start: DemoStart, settings: Settings, var_dir: Path, node_line: str, gateways: str) -> str:
    """The lines printed once the demo is ready to serve."""
    heading = "Datos de demostración cargados." if start.loaded else "Demostración (datos ya cargados)."
    if start.server is None:
        server = (
            "  Servidor de la demostración: no está en la base de datos (¿borrado?); la demostración sigue sin nodo.\n"
            f"    Para empezar de nuevo con los datos de demostración: {reset_hint(settings, var_dir)}"
        )
    else:
        server = f"  Servidor '{start.server.name}': {node_line}, conectado por {settings.grpc_bind}"
    return f"{heading}\n{logins(settings, start.logins)}\n{server}\n{gateways}\n"


async def _serve(
    settings: Settings,
    var_dir: Path,
    qvapay: FakeQvaPay,
    remesita: FakeRemesita,
    network: DemoNetwork | None,
    reason: str | None,
) -> None:
    from controlplane.http_server import uvicorn_server

    start = await prepare(settings, var_dir, NODE_ADDRESS if network else SIMULATED_ADDRESS)
    demo = start.server
    # The demo client logs in with the customer's published password: only while it still opens the account.
    no_client = {
        Login.CHANGED: "la contraseña del cliente demo cambió",
        Login.BLOCKED: "la cuenta del cliente demo está bloqueada",
        Login.GONE: "la cuenta del cliente demo ya no existe",
    }.get(start.logins[DEMO_CUSTOMER[0]])
    node_line = ""
    if demo is not None and network is not None:
        network.create()
        agent_log = network.start_agent(node_control_url(settings), demo.id, demo.credential)
        client = (
            f"sin cliente de prueba: {no_client}"
            if no_client
            else f"un cliente de prueba en {network.client_ns} usa la configuración del cliente demo"
        )
        node_line = (
            f"agente real (wireguard-go) en el espacio de red {network.node_ns}, registro en {agent_log};\n    {client}"
        )
    elif demo is not None:
        node_line = f"nodo simulado (backend 'demo'; sin agente real: {reason})"
    gateways = f"  Pasarelas de prueba: QvaPay en {qvapay.url}, Remesita en {remesita.url}"
    print(banner(start, settings, var_dir, node_line, gateways), flush=True)
    server = uvicorn_server(settings)
    node: asyncio.Task[None] | None = None
    if demo is not None and network is not None and not no_client:
        url = client_url_for_bind(settings.http_bind)
        address = str(node_address(demo.tunnel_subnet).ip)
        node = asyncio.create_task(network.client_traffic(url, *DEMO_CUSTOMER, address))
    elif demo is not None and network is None:
        node = asyncio.create_task(
            run_simulated_node(
                settings.grpc_public_url, demo.id, demo.credential, traffic=True,
                public_key=_node_key(settings.secret_key_file),
            )
        )  # fmt: skip
    try:
        await server.serve()
    finally:
        if node is not None:
            node.cancel()
            await asyncio.wait({node}, timeout=5)
