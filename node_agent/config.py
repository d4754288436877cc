"""Agent settings: /etc/vpn-node/agent.toml overridden by VPN_NODE_* environment variables."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from node_agent.relay import MAX_BYTES_PER_SECOND, MAX_PACKETS_PER_SECOND

DEFAULT_CONFIG_PATH = Path("/etc/vpn-node/agent.toml")
DEFAULT_STATE_DIR = Path("/var/lib/vpn-node")
BACKENDS = ("kernel", "userspace")
_IFNAME = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")


class ConfigError(ValueError):
    """A setting is missing or invalid; the message names the setting and where it comes from."""


@dataclass(frozen=True, slots=True)
class AgentConfig:
    control_url: str  # host:port of the control plane's gRPC listener (or unix:/path)
    node_id: str
    credential: str
    backend: str = "kernel"
    interface: str = "wg0"
    backbone_interface: str = ""  # "" = the name the control plane sends
    egress_interface: str = ""  # "" = no NAT rules (e.g. a node that only routes the backbone)
    state_dir: Path = DEFAULT_STATE_DIR
    tls_ca: Path | None = None  # None = plaintext gRPC (only for loopback / tests / a private link)
    stats_interval: float = 5.0
    stats_full_interval: float = 60.0  # a stats report holding every peer at least this often (node_agent/stats.py)
    keepalive_interval: float = 20.0
    backoff_initial: float = 1.0
    backoff_max: float = 30.0
    log_level: str = "INFO"
    metrics_bind: str = ""  # host:port for Prometheus (e.g. 127.0.0.1:9586); "" = no metrics listener
    # Discovery relay limits per room member (node_agent/relay.py): far above a LAN game, far below a flood.
    relay_packets_per_second: float = 50
    relay_bytes_per_second: float = 65536
    # The node-wide budget for every copy the relay sends, of all rooms together: one room cannot take the uplink.
    relay_budget_packets_per_second: float = 10_000
    relay_budget_bytes_per_second: float = 4_000_000
    # The least each room's share of that budget may be (an equal part of it per relaying room, at least this).
    relay_room_share_min_packets_per_second: float = 2_000
    relay_room_share_min_bytes_per_second: float = 800_000
    # Seconds between discovery reports (the rooms' lobby, node_agent/discovery/); 0 = no recognition at all.
    discovery_interval: float = 2.0
    # Seconds between rounds of echoes to room members' devices (node_agent/rtt.py); 0 = no round trips measured.
    rtt_interval: float = 30.0

    def __repr__(self) -> str:
        # The credential is a secret: never let it reach a log line through repr().
        return (
            f"AgentConfig(control_url={self.control_url!r}, node_id={self.node_id!r}, "
            f"backend={self.backend!r}, interface={self.interface!r}, egress={self.egress_interface!r}, "
            f"state_dir={str(self.state_dir)!r}, tls={'on' if self.tls_ca else 'off'})"
        )

    __str__ = __repr__


# setting name -> (environment variable, type)
_FIELDS: dict[str, tuple[str, type]] = {
    "control_url": ("VPN_NODE_CONTROL_URL", str),
    "node_id": ("VPN_NODE_ID", str),
    "credential": ("VPN_NODE_CREDENTIAL", str),
    "backend": ("VPN_NODE_BACKEND", str),
    "interface": ("VPN_NODE_INTERFACE", str),
    "backbone_interface": ("VPN_NODE_BACKBONE_INTERFACE", str),
    "egress_interface": ("VPN_NODE_EGRESS_INTERFACE", str),
    "state_dir": ("VPN_NODE_STATE_DIR", Path),
    "tls_ca": ("VPN_NODE_TLS_CA", Path),
    "stats_interval": ("VPN_NODE_STATS_INTERVAL", float),
    "stats_full_interval": ("VPN_NODE_STATS_FULL_INTERVAL", float),
    "keepalive_interval": ("VPN_NODE_KEEPALIVE_INTERVAL", float),
    "backoff_initial": ("VPN_NODE_BACKOFF_INITIAL", float),
    "backoff_max": ("VPN_NODE_BACKOFF_MAX", float),
    "log_level": ("VPN_NODE_LOG_LEVEL", str),
    "metrics_bind": ("VPN_NODE_METRICS_BIND", str),
    "relay_packets_per_second": ("VPN_NODE_RELAY_PACKETS_PER_SECOND", float),
    "relay_bytes_per_second": ("VPN_NODE_RELAY_BYTES_PER_SECOND", float),
    "relay_budget_packets_per_second": ("VPN_NODE_RELAY_BUDGET_PACKETS_PER_SECOND", float),
    "relay_budget_bytes_per_second": ("VPN_NODE_RELAY_BUDGET_BYTES_PER_SECOND", float),
    "relay_room_share_min_packets_per_second": ("VPN_NODE_RELAY_ROOM_SHARE_MIN_PACKETS_PER_SECOND", float),
    "relay_room_share_min_bytes_per_second": ("VPN_NODE_RELAY_ROOM_SHARE_MIN_BYTES_PER_SECOND", float),
    "discovery_interval": ("VPN_NODE_DISCOVERY_INTERVAL", float),
    "rtt_interval": ("VPN_NODE_RTT_INTERVAL", float),
}
_REQUIRED = ("control_url", "node_id", "credential")


# Numbers where 0 means "off" rather than a mistake.
_ZERO_MEANS_OFF = frozenset({"discovery_interval", "rtt_interval"})


def _convert(name: str, raw: Any, kind: type, source: str) -> Any:
    if kind is float:
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"{name} ({source}) must be a number, got {raw!r}") from None
        if value < 0 or (value == 0 and name not in _ZERO_MEANS_OFF):
            raise ConfigError(f"{name} ({source}) must be positive, got {raw!r}")
        return value
    if not isinstance(raw, str):
        raise ConfigError(f"{name} ({source}) must be a string, got {type(raw).__name__}")
    return Path(raw) if kind is Path else raw.strip()


def _check_host_port(value: str, source: str) -> None:
    if value.startswith("unix:") and len(value) > len("unix:"):
        return  # gRPC's Unix socket target: a control plane on the same host, or tests across namespaces
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"control_url ({source}) must be host:port (or unix:/path), got {value!r}")


def load_config(environ: Mapping[str, str] | None = None, config_path: Path | None = None) -> AgentConfig:
    """Read the TOML file (if present) then apply VPN_NODE_* overrides; raise ConfigError on bad settings.

    The file path is `config_path`, else VPN_NODE_CONFIG, else /etc/vpn-node/agent.toml. A missing file is an
    error only when its path was given explicitly: environment variables alone are a complete configuration.
    """
    env = os.environ if environ is None else environ
    explicit = config_path is not None or "VPN_NODE_CONFIG" in env
    path = config_path or Path(env.get("VPN_NODE_CONFIG", str(DEFAULT_CONFIG_PATH)))

    file_values: dict[str, Any] = {}
    if path.is_file():
        try:
            with path.open("rb") as fh:
                file_values = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    elif explicit:
        raise ConfigError(f"config file {path} does not exist")

    unknown = sorted(set(file_values) - set(_FIELDS))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}")

    values: dict[str, Any] = {}
    for name, (env_name, kind) in _FIELDS.items():
        if env.get(env_name, "") != "":
            values[name] = _convert(name, env[env_name], kind, f"environment {env_name}")
        elif name in file_values:
            values[name] = _convert(name, file_values[name], kind, f"{path}")

    missing = [name for name in _REQUIRED if not values.get(name)]
    if missing:
        hints = ", ".join(f"{n} (or {_FIELDS[n][0]})" for n in missing)
        raise ConfigError(f"missing required setting(s): {hints}")

    _check_host_port(values["control_url"], "control_url")
    backend = values.get("backend", "kernel")
    if backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    for name in ("interface", "backbone_interface", "egress_interface"):
        ifname = values.get(name, "wg0" if name == "interface" else "")
        if (ifname and not _IFNAME.match(ifname)) or (name == "interface" and not ifname):
            raise ConfigError(f"{name} must be a Linux interface name (1-15 chars), got {ifname!r}")
    level = values.get("log_level", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"log_level must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
    for name, most in (
        ("relay_packets_per_second", MAX_PACKETS_PER_SECOND),
        ("relay_bytes_per_second", MAX_BYTES_PER_SECOND),
        ("relay_budget_packets_per_second", MAX_PACKETS_PER_SECOND),
        ("relay_budget_bytes_per_second", MAX_BYTES_PER_SECOND),
        ("relay_room_share_min_packets_per_second", MAX_PACKETS_PER_SECOND),
        ("relay_room_share_min_bytes_per_second", MAX_BYTES_PER_SECOND),
    ):
        if name in values and not 1 <= values[name] <= most:
            raise ConfigError(f"{name} must be between 1 and {most}, got {values[name]!r}")
    if values.get("tls_ca") is not None:
        source = f"environment {_FIELDS['tls_ca'][0]}" if env.get(_FIELDS["tls_ca"][0], "") else str(path)
        _check_tls_ca(values["tls_ca"], source)
    return AgentConfig(**values)


# What to do about a tls_ca that cannot be used, whichever way it fails.
_TLS_CA_FIX = (
    "copy there the CA certificate (PEM) that signed the control plane's certificate, readable by the agent's user "
    "(chown root:vpn-node, chmod 0640); behind nginx with a public certificate (Let's Encrypt) use "
    'tls_ca = "/etc/ssl/certs/ca-certificates.crt" (package ca-certificates)'
)


def _check_tls_ca(ca: Path, source: str) -> None:
    """The file must be there, readable by this user and hold a certificate: otherwise every connection would fail
    with a TLS error that names neither the setting nor the file."""
    try:
        text = ca.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"tls_ca ({source}) names {ca}, which does not exist: {_TLS_CA_FIX}") from None
    except IsADirectoryError:
        raise ConfigError(f"tls_ca ({source}) names {ca}, a directory, not a file: {_TLS_CA_FIX}") from None
    except OSError as exc:
        raise ConfigError(
            f"tls_ca ({source}) names {ca}, which cannot be read ({exc.strerror}): {_TLS_CA_FIX}"
        ) from None
    if b"-----BEGIN CERTIFICATE-----" not in text:
        raise ConfigError(f"tls_ca ({source}) names {ca}, which holds no PEM certificate: {_TLS_CA_FIX}")
