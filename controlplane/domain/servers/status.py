"""What staff see of a server (live status included) and the exact steps to install its agent."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import datetime, timedelta

import msgspec
from sqlalchemy import ColumnElement, and_, or_

from controlplane.db import utcnow
from controlplane.domain.servers.fields import without_controls
from controlplane.domain.servers.models import Server

# An agent reports stats every few seconds and keepalives every 20 s: silent for longer means gone.
ONLINE_WITHIN = timedelta(seconds=45)


def is_online(server: Server) -> bool:
    """Its agent was heard from lately and its stream has not ended since (docs/operations.md, "Server status"):
    any process may hold the stream, so this reads the database."""
    if server.last_seen is None or utcnow() - server.last_seen >= ONLINE_WITHIN:
        return False
    return server.disconnected_at is None or server.disconnected_at < server.last_seen


def online_clause() -> ColumnElement[bool]:
    """`is_online` as SQL."""
    return and_(
        Server.last_seen >= utcnow() - ONLINE_WITHIN,
        or_(Server.disconnected_at.is_(None), Server.disconnected_at < Server.last_seen),
    )


def is_in_sync(server: Server) -> bool:
    """Its agent has applied every change queued for it."""
    return server.applied_serial >= server.serial


class ServerStatus(msgspec.Struct):
    id: str
    name: str
    address: str
    port: int
    ubication: str
    active: bool
    allow_partys: bool
    interface_name: str
    tunnel_subnet: str
    dns: str
    capacity: int
    public_key: str | None
    agent_version: str | None
    backend: str | None
    online: bool
    last_seen: datetime | None
    serial: int
    applied_serial: int
    in_sync: bool
    has_credential: bool
    credential_issued: datetime | None
    peers: int
    peers_active: int
    stats_at: datetime | None
    stats_peers_connected: int
    stats_rx_bytes: int
    stats_tx_bytes: int
    backbone_address: str | None
    backbone_endpoint: str
    backbone_port: int


class ServerCreated(msgspec.Struct):
    server: ServerStatus
    credential: str
    install: str
    # Control-plane settings the install steps needed but did not have (e.g. VPN_AGENT_REPOSITORY): those steps
    # are left commented out and marked "FALTA", and the manager page says which settings to add.
    install_missing: list[str] = msgspec.field(default_factory=list)


@dataclass(frozen=True)
class AgentSource:
    """Where a new node gets the agent's code: VPN_AGENT_REPOSITORY (git URL) at VPN_AGENT_REF (tag, branch or
    commit; "" = the repository's default branch)."""

    repository: str = ""
    ref: str = ""


def status_of(server: Server, peers: int = 0, peers_active: int = 0, connected_here: bool = False) -> ServerStatus:
    """`online` reads last-seen from the database (any process may hold the agent's stream); a stream held by this
    process counts too."""
    online = connected_here or is_online(server)
    return ServerStatus(
        id=server.id,
        name=server.name,
        address=server.address,
        port=server.port,
        ubication=server.ubication,
        active=server.active,
        allow_partys=server.allow_partys,
        interface_name=server.interface_name,
        tunnel_subnet=server.tunnel_subnet,
        dns=server.dns,
        capacity=server.capacity,
        public_key=server.public_key,
        agent_version=server.agent_version,
        backend=server.backend,
        online=online,
        last_seen=server.last_seen,
        serial=server.serial,
        applied_serial=server.applied_serial,
        in_sync=is_in_sync(server),
        has_credential=server.credential_hash is not None,
        credential_issued=server.credential_issued,
        peers=peers,
        peers_active=peers_active,
        stats_at=server.stats_at,
        stats_peers_connected=server.stats_peers_connected or 0,
        stats_rx_bytes=server.stats_rx_bytes or 0,
        stats_tx_bytes=server.stats_tx_bytes or 0,
        backbone_address=server.backbone_address,
        backbone_endpoint=server.backbone_endpoint,
        backbone_port=server.backbone_port,
    )


def _fetch_code(source: AgentSource) -> list[str]:
    """The lines that put the agent's code in /opt/vpn-service: exact when the source is configured; otherwise
    commented out and marked, so a pasted session does not run a made-up URL."""
    if not source.repository:
        return [
            "# FALTA: el panel no tiene VPN_AGENT_REPOSITORY (la URL git del servicio). Defínala en",
            "# /etc/vpn-service/controlplane.env y emita una credencial nueva para ver estos pasos completos, o",
            "# copie aquí el código de la misma versión que este panel:",
            "#   git clone <URL git del servicio> /opt/vpn-service",
        ]
    lines = [
        "# El código del agente en /opt/vpn-service (VPN_AGENT_REPOSITORY del panel):",
        f"git clone --quiet {shlex.quote(source.repository)} /opt/vpn-service",
    ]
    if source.ref:
        lines.append(f"git -C /opt/vpn-service checkout --quiet {shlex.quote(source.ref)}   # VPN_AGENT_REF")
    else:
        lines.append("# Sin VPN_AGENT_REF: la rama por defecto; fije la versión de este panel si no coinciden.")
    return lines


# Marks a line that only works on this machine (the demo's agents dial a unix socket or loopback); docs/deployment.md.
DEMO_ONLY = "SOLO DEMO"


def only_here(control_url: str) -> bool:
    """A control URL no other machine can dial: the demo's unix socket, or a loopback address (the default)."""
    if control_url.startswith("unix:"):
        return True
    host = control_url.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]").lower()
    return host == "localhost" or host == "::1" or host.startswith("127.")


def install_steps(
    server: Server, credential: str, control_url: str, tls: bool, source: AgentSource = AgentSource()
) -> tuple[str, list[str]]:
    """A root shell session for a fresh Debian server, following packaging/vpn-node-agent.service and
    packaging/agent.toml.example, and the settings it lacked. Only these steps ever show the credential; it is not
    stored in clear."""
    demo = only_here(control_url)
    toml = [
        f"control_url = {_toml(control_url)}"
        + (f"   # {DEMO_ONLY}: solo se alcanza desde esta máquina" if demo else ""),
        f"node_id = {_toml(server.id)}",
        f"credential = {_toml(credential)}",
        'backend = "kernel"',
        f"interface = {_toml(server.interface_name)}",
        'egress_interface = "eth0"',
        'state_dir = "/var/lib/vpn-node"',
    ]
    if tls:
        toml.insert(3, 'tls_ca = "/etc/vpn-node/control-ca.pem"')
    lines = [
        f"# Servidor {_shown(server.name)} ({_shown(server.address)}): como root en un Debian 12 recién instalado.",
        "# Los mismos pasos que docs/deployment.md ('Adding a VPN node'), con los valores de este servidor.",
        *(_demo_notice(control_url) if demo else []),
        "apt-get update",
        "apt-get install -y --no-install-recommends wireguard-tools nftables python3 python3-venv git ca-certificates",
        '# Solo con backend = "userspace" (contenedores sin el módulo): apt-get install -y wireguard-go',
        "echo wireguard > /etc/modules-load.d/wireguard.conf && modprobe wireguard",
        "useradd --system --no-create-home --shell /usr/sbin/nologin vpn-node || true",
        "",
        *_fetch_code(source),
        "python3 -m venv /opt/uv && /opt/uv/bin/pip install --quiet uv",
        "cd /opt/vpn-service && /opt/uv/bin/uv sync --frozen --no-dev",
        "",
        "install -d -m 0750 -g vpn-node /etc/vpn-node",
        "cat > /etc/vpn-node/agent.toml <<'EOF'",
        *toml,
        "EOF",
        "chown root:vpn-node /etc/vpn-node/agent.toml && chmod 0640 /etc/vpn-node/agent.toml",
    ]
    if tls:
        lines.append("# Copie la CA del certificado del panel a /etc/vpn-node/control-ca.pem (tls_ca).")
    lines += [
        "# Si la interfaz hacia internet no es eth0, corrija egress_interface (ip route show default).",
        "echo 'net.ipv4.ip_forward = 1' > /etc/sysctl.d/90-vpn-node.conf && sysctl --system >/dev/null",
        "",
        "install -m 0644 packaging/vpn-node-agent.service /etc/systemd/system/",
        "systemctl daemon-reload && systemctl enable --now vpn-node-agent",
        'journalctl -u vpn-node-agent -n 20 --no-pager   # "full state N applied in ... ms"',
        "wg show",
        f"# Abra {server.port}/udp en el cortafuegos: los clientes se conectan a"
        f" {_shown(server.address)}:{server.port}.",
    ]
    if server.allow_partys:
        lines.append(
            f"# Salas: abra también {server.backbone_port}/udp (backbone) a los otros servidores con salas; lo marcan"
            f" en {_shown(server.backbone_endpoint or server.address)}:{server.backbone_port}."
        )
    lines.append("# En la página Servidores el nodo pasa a 'En línea' en unos segundos.")
    missing = [] if source.repository else ["VPN_AGENT_REPOSITORY"]
    return "\n".join(lines) + "\n", missing


def _demo_notice(control_url: str) -> list[str]:
    return [
        f"# {DEMO_ONLY}: este panel espera a los agentes en {_shown(control_url)}, que solo se alcanza desde esta",
        f"# máquina (la demostración, make run). Las líneas marcadas {DEMO_ONLY} no sirven en un servidor real: en",
        "# producción defina VPN_GRPC_PUBLIC_URL (host:puerto que los nodos alcanzan) y VPN_GRPC_TLS_CERT, y emita",
        "# una credencial nueva para ver los pasos completos. El resto de las líneas vale igual en producción.",
    ]


def _shown(value: str) -> str:
    """A stored value inside a comment line of the steps, its control characters dropped: a line break would end
    the comment and make the rest a command the operator runs as root (the fields are checked when set; this covers
    a row from before)."""
    return without_controls(value)


def _toml(value: str) -> str:
    """A TOML basic string (credentials and ids are URL-safe, but quote properly anyway)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
