"""The root shell session that installs a node's agent, rendered from packaging/node-install.sh.

One source for two readers: the manager page prints it with the server's values right after a server is created (or
its credential reissued), and docs/deployment.md ("Adding a VPN node") shows it rendered with the example values of
`guide_example()`; tests/unit/test_node_install_steps.py holds the guide to that rendering, and
`python -m controlplane.domain.servers.install_steps docs/deployment.md` rewrites the guide's copy after the template
changed.

Placeholders are `{{name}}`. A placeholder alone on its line stands for a block of lines (none: the line goes); the
others are replaced inside their line. Values that come from the database or the settings are quoted for where they
land (TOML strings, shell words, comment lines without control characters).
"""

from __future__ import annotations

import ipaddress
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from controlplane.domain.servers.fields import without_controls

TEMPLATE = Path(__file__).resolve().parents[3] / "packaging" / "node-install.sh"
SYSTEM_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
NODE_CA_PATH = "/etc/vpn-node/control-ca.pem"
# Marks a line that only works on this machine (the demo's agents dial a unix socket or loopback); docs/deployment.md.
DEMO_ONLY = "SOLO DEMO"
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_PEM = re.compile(r"\A(?:-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n)+\Z")
# Where the guide's copy sits: the ```sh block right after this line (docs/deployment.md).
GUIDE_MARKER = "<!-- node-install: rendered from packaging/node-install.sh; tests/unit/test_node_install_steps.py -->"


@dataclass(frozen=True)
class AgentSource:
    """Where a new node gets the agent's code: VPN_AGENT_REPOSITORY (git URL) at VPN_AGENT_REF (tag, branch or
    commit; "" = the repository's default branch)."""

    repository: str = ""
    ref: str = ""


@dataclass(frozen=True)
class AgentTrust:
    """What the agent trusts when it dials `control_url` (VPN_AGENT_TLS_CA, docs/settings.md).

    `mode` is "plaintext" (a control plane on loopback, a unix socket or a private link), "system" (a certificate
    from a public CA, as nginx serves with Let's Encrypt: Debian's bundle from ca-certificates) or "file" (a private
    CA or a self-signed certificate: `pem` is copied to the node). A "file" whose PEM could not be read has
    `pem` "" and `problem` saying why: the steps then say what is missing instead of writing a broken file."""

    mode: str
    pem: str = ""
    problem: str = ""


@dataclass(frozen=True)
class NodeFacts:
    """The server's values the steps need."""

    server_id: str
    name: str
    address: str
    port: int
    interface: str
    allow_partys: bool
    backbone_port: int
    backbone_endpoint: str


def agent_trust(setting: str, control_url: str) -> AgentTrust:
    """VPN_AGENT_TLS_CA read: "none", "system", a PEM file on the control plane's host, or unset (plaintext when
    agents dial a unix socket or a loopback address, else the system's bundle: nginx in front with a public
    certificate, the guide's way)."""
    value = setting.strip()
    if value.lower() == "none":
        return AgentTrust("plaintext")
    if value.lower() == "system":
        return AgentTrust("system")
    if not value:
        return AgentTrust("plaintext" if _local(control_url) else "system")
    try:
        pem = Path(value).read_text(encoding="ascii").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        return AgentTrust("file", problem=f"no se pudo leer {value}: {getattr(exc, 'strerror', None) or exc}")
    pem = pem if pem.endswith("\n") else pem + "\n"
    if not _PEM.match(pem):
        return AgentTrust("file", problem=f"{value} no es un certificado PEM")
    return AgentTrust("file", pem=pem)


def _local(control_url: str) -> bool:
    if control_url.startswith("unix:"):
        return True
    host = control_url.rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def render(
    facts: NodeFacts, credential: str, control_url: str, trust: AgentTrust, source: AgentSource
) -> tuple[str, list[str]]:
    """The steps, and the control-plane settings they lacked (their lines are commented out and marked FALTA)."""
    missing = [] if source.repository else ["VPN_AGENT_REPOSITORY"]
    if trust.problem:
        missing.append("VPN_AGENT_TLS_CA")
    values = {
        "name": _shown(facts.name),
        "address": _shown(facts.address),
        "fetch_code": _fetch_code(source),
        "demo_notice": _demo_notice(control_url) if _local(control_url) else [],
        "control_url": _toml(control_url)
        + (f"   # {DEMO_ONLY}: solo se alcanza desde esta máquina" if _local(control_url) else ""),
        "node_id": _toml(facts.server_id),
        "credential": _toml(credential),
        "interface": _toml(facts.interface),
        "tls_ca": _tls_ca(trust),
        "tls_ca_file": _tls_ca_file(trust),
        "port": str(facts.port),
        "endpoint": f"{_shown(facts.address)}:{facts.port}",
        "rooms": _rooms(facts),
    }
    lines: list[str] = []
    for line in TEMPLATE.read_text().splitlines():
        alone = _PLACEHOLDER.fullmatch(line.strip())
        if alone:
            block = values[alone.group(1)]
            assert isinstance(block, list), alone.group(1)
            lines += block
        else:
            lines.append(_PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), line))
    return "\n".join(lines) + "\n", missing


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


def _demo_notice(control_url: str) -> list[str]:
    """The demo's panel waits for agents where only this machine reaches: the steps say which line is demo-only."""
    return [
        f"# {DEMO_ONLY}: este panel espera a los agentes en {_shown(control_url)}, que solo se alcanza desde esta",
        f"# máquina (la demostración, make run). La línea marcada {DEMO_ONLY} no sirve en un servidor real: en",
        "# producción defina VPN_GRPC_PUBLIC_URL (el host:puerto que los nodos alcanzan, nginx en 7443 en",
        "# docs/deployment.md) y emita una credencial nueva. El resto de las líneas vale igual en producción.",
    ]


def _tls_ca(trust: AgentTrust) -> list[str]:
    """The agent.toml lines saying what the agent trusts (inside the file, so they stay with the setting)."""
    if trust.mode == "plaintext":
        return ["# Sin tls_ca: gRPC sin cifrar, solo en loopback o en un enlace privado (VPN_AGENT_TLS_CA del panel)."]
    if trust.mode == "system":
        return [
            "# El certificado del panel es de una CA pública (nginx con Let's Encrypt): la lista de ca-certificates.",
            f"tls_ca = {_toml(SYSTEM_CA_BUNDLE)}",
        ]
    return [
        "# La CA del certificado del panel (VPN_AGENT_TLS_CA), copiada abajo.",
        f"tls_ca = {_toml(NODE_CA_PATH)}",
    ]


def _tls_ca_file(trust: AgentTrust) -> list[str]:
    """For a private CA: the certificate itself, written where tls_ca points."""
    if trust.mode != "file":
        return []
    if trust.problem:
        return [
            f"# FALTA: la CA del panel (VPN_AGENT_TLS_CA): {_shown(trust.problem)}. Copie aquí el certificado PEM que",
            f"# firmó el del panel a {NODE_CA_PATH} (root:vpn-node, 0640); sin él, el agente no arranca.",
        ]
    return [
        f"cat > {NODE_CA_PATH} <<'EOF'",
        *trust.pem.splitlines(),
        "EOF",
        f"chown root:vpn-node {NODE_CA_PATH} && chmod 0640 {NODE_CA_PATH}",
    ]


def _rooms(facts: NodeFacts) -> list[str]:
    if not facts.allow_partys:
        return []
    return [
        f"# Salas: abra también {facts.backbone_port}/udp (backbone) a los otros servidores con salas; lo marcan"
        f" en {_shown(facts.backbone_endpoint or facts.address)}:{facts.backbone_port}."
    ]


def _shown(value: str) -> str:
    """A stored value inside a comment line of the steps, its control characters dropped: a line break would end
    the comment and make the rest a command the operator runs as root (the fields are checked when set; this covers
    a row from before)."""
    return without_controls(value)


def _toml(value: str) -> str:
    """A TOML basic string (credentials and ids are URL-safe, but quote properly anyway)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def guide_example() -> str:
    """The steps as docs/deployment.md shows them: the guide's example names, nginx in front with a public
    certificate, the repository at a release tag, a server that allows rooms."""
    facts = NodeFacts(
        server_id="ID-DEL-SERVIDOR",
        name="Bogotá 1",
        address="bog1.vpn.example.net",
        port=51820,
        interface="wg0",
        allow_partys=True,
        backbone_port=51821,
        backbone_endpoint="",
    )
    source = AgentSource("https://git.example.net/vpn-service.git", "v1.4.0")
    text, _ = render(facts, "CREDENCIAL-DEL-NODO", "vpn.example.net:7443", AgentTrust("system"), source)
    return text


def guide_block(guide: str) -> tuple[int, int]:
    """Where the rendered steps sit in the guide: (start, end) of the ```sh block's body after GUIDE_MARKER."""
    marker = guide.index(GUIDE_MARKER)
    start = guide.index("```sh\n", marker) + len("```sh\n")
    return start, guide.index("```\n", start)


def main(argv: list[str]) -> int:
    """Rewrite the rendered steps in the given guide file(s)."""
    for name in argv:
        path = Path(name)
        guide = path.read_text()
        start, end = guide_block(guide)
        path.write_text(guide[:start] + guide_example() + guide[end:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or [str(TEMPLATE.parents[1] / "docs" / "deployment.md")]))
