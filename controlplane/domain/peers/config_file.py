"""Renders a peer's standard wg-quick file, the one customers load into the official WireGuard apps."""

from __future__ import annotations

import io
from dataclasses import dataclass

import wgconfig


@dataclass(frozen=True, slots=True)
class ClientConfig:
    private_key: str
    address: str
    dns: str
    server_public_key: str
    preshared_key: str
    endpoint_host: str
    endpoint_port: int


def render(config: ClientConfig) -> str:
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
    wg.add_attr(config.server_public_key, "AllowedIPs", "0.0.0.0/0, ::/0")
    # Keeps NAT mappings on mobile networks alive so that pushes and games reach the client.
    wg.add_attr(config.server_public_key, "PersistentKeepalive", 25)
    out = io.StringIO()
    wg.write_to_fileobj(out)
    return out.getvalue()
