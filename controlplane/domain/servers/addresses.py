"""Tunnel address allocation inside a server's subnet: the node takes the first host, peers the lowest free one."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from controlplane.errors import Conflict, Invalid


class SubnetFull(Conflict):
    code = "subnet_full"
    message = "El servidor no tiene direcciones libres. Elija otro servidor."


# Addresses of the backbone interfaces that join room-enabled nodes (one per server, unique by constraint).
BACKBONE_SUBNET = "10.255.0.0/16"


def backbone_interface_address(address: str) -> str:
    """The backbone address with the backbone subnet's prefix, as the node's interface takes it."""
    return f"{address}/{ipaddress.ip_network(BACKBONE_SUBNET).prefixlen}"


def node_address(subnet: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    network = ipaddress.ip_network(subnet)
    first = next(network.hosts())
    return ipaddress.ip_interface(f"{first}/{network.prefixlen}")


def allocate(subnet: str, used: Iterable[str]) -> str:
    """The lowest host address that is neither the node's nor in `used`; freed addresses come back first."""
    network = ipaddress.ip_network(subnet)
    taken = {ipaddress.ip_address(a) for a in used}
    hosts = network.hosts()
    next(hosts, None)  # the node's own address
    for host in hosts:
        if host not in taken:
            return str(host)
    raise SubnetFull()


def validate_subnet(subnet: str) -> str:
    try:
        network = ipaddress.ip_network(subnet, strict=True)
    except ValueError as exc:
        raise Invalid("La subred del túnel no es válida (ejemplo: 10.8.0.0/24).", code="invalid_subnet") from exc
    if network.num_addresses < 4:
        raise Invalid("La subred del túnel es demasiado pequeña.", code="invalid_subnet")
    backbone = ipaddress.ip_network(BACKBONE_SUBNET)
    if network.version == backbone.version and network.overlaps(backbone):  # type: ignore[arg-type]
        # Room-enabled nodes route client subnets over the backbone: the two may not share addresses.
        raise Invalid(
            f"La subred del túnel se superpone con la red del backbone entre servidores ({BACKBONE_SUBNET}).",
            code="invalid_subnet",
        )
    return str(network)
