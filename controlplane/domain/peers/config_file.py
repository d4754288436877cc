"""Renders a peer's standard wg-quick file, the one customers load into the official WireGuard apps, and the header
that names it."""

from __future__ import annotations

import dataclasses
import io
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

import wgconfig

from controlplane.domain.servers.fields import first_control, without_controls

# Every peer's file routes everything through the tunnel; a guest pass's peer gets a split one (service.py).
FULL_TUNNEL: tuple[str, ...] = ("0.0.0.0/0", "::/0")
# What a game's LAN discovery is sent to, so that it enters a split tunnel and reaches the node's relay
# (docs/agent-protocol.md, "Discovery relay"): the limited broadcast and IPv4 multicast (mDNS, Minecraft's
# 224.0.2.60...). A tunnel subnet's own broadcast address is inside that subnet, already routed.
DISCOVERY_ROUTES: tuple[str, ...] = ("224.0.0.0/4", "255.255.255.255/32")


@dataclass(frozen=True, slots=True)
class ClientConfig:
    private_key: str
    address: str
    dns: str  # "" = no DNS line: the device keeps its own resolver
    server_public_key: str
    preshared_key: str
    endpoint_host: str
    endpoint_port: int
    allowed_ips: tuple[str, ...] = FULL_TUNNEL  # what the device sends into the tunnel


class UnsafeValue(ValueError):
    """A value holds a control character: written into the file it could start a line of its own (wg-quick runs
    `PostUp = ...` lines as root). The server's fields are checked when staff set them; this refuses a row that
    got past them (one from before the check, or written by hand)."""

    def __init__(self, field: str) -> None:
        super().__init__(f"control character in {field}")
        self.field = field


def render(config: ClientConfig) -> str:
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        values = value if isinstance(value, tuple) else (value,)
        if any(isinstance(v, str) and first_control(v) is not None for v in values):
            raise UnsafeValue(field.name)
    wg = wgconfig.WGConfig()
    wg.initialize_file()
    wg.add_attr(None, "PrivateKey", config.private_key)
    prefix = 128 if ":" in config.address else 32
    wg.add_attr(None, "Address", f"{config.address}/{prefix}")
    if config.dns.strip():
        wg.add_attr(None, "DNS", ", ".join(d.strip() for d in config.dns.split(",") if d.strip()))
    wg.add_peer(config.server_public_key)
    wg.add_attr(config.server_public_key, "PresharedKey", config.preshared_key)
    host = f"[{config.endpoint_host}]" if ":" in config.endpoint_host else config.endpoint_host
    wg.add_attr(config.server_public_key, "Endpoint", f"{host}:{config.endpoint_port}")
    wg.add_attr(config.server_public_key, "AllowedIPs", ", ".join(config.allowed_ips))
    # Keeps NAT mappings on mobile networks alive so that pushes and games reach the client.
    wg.add_attr(config.server_public_key, "PersistentKeepalive", 25)
    out = io.StringIO()
    wg.write_to_fileobj(out)
    return out.getvalue()


# What may stand in the plain `filename="..."` of the header: everything else becomes "_".
_UNSAFE_IN_FILENAME = re.compile(r"[^A-Za-z0-9._-]")


def content_disposition(kind: Literal["attachment", "inline"], peer_name: str) -> str:
    """`{kind}; filename="{name}.conf"; filename*=UTF-8''{name}.conf` (RFC 6266, RFC 5987). Peer names are checked
    when they are made (letters, digits, "-", "_"); a stored one that is not still yields one header that names one
    file: control characters are dropped, and the plain name keeps only safe characters, the encoded one the rest."""
    name = without_controls(peer_name) or "peer"
    plain = _UNSAFE_IN_FILENAME.sub("_", name)
    return f"{kind}; filename=\"{plain}.conf\"; filename*=UTF-8''{quote(name, safe='')}.conf"
