"""Tunnel address allocation: lowest free host first, freed addresses reused, a full subnet refused clearly."""

from __future__ import annotations

import pytest

from controlplane.domain.servers.addresses import SubnetFull, allocate, node_address, validate_subnet
from controlplane.errors import Invalid


def test_the_node_takes_the_first_host_and_peers_the_next_free_one() -> None:
    assert str(node_address("10.8.0.0/24")) == "10.8.0.1/24"
    assert allocate("10.8.0.0/24", []) == "10.8.0.2"
    assert allocate("10.8.0.0/24", ["10.8.0.2", "10.8.0.3"]) == "10.8.0.4"


def test_a_freed_address_comes_back_first() -> None:
    assert allocate("10.8.0.0/24", ["10.8.0.2", "10.8.0.4"]) == "10.8.0.3"


def test_a_full_subnet_says_so_in_spanish() -> None:
    used = [f"10.9.0.{i}" for i in range(2, 7)]  # /29: hosts .1-.6, .1 is the node
    with pytest.raises(SubnetFull) as error:
        allocate("10.9.0.0/29", used)
    assert error.value.status_code == 409
    assert error.value.message == "El servidor no tiene direcciones libres. Elija otro servidor."


def test_ipv6_subnets_work_too() -> None:
    assert allocate("fd00:8::/120", []) == "fd00:8::2"


@pytest.mark.parametrize("subnet", ["10.8.0.1/24", "no", "10.8.0.0/31"])
def test_bad_subnets_are_refused(subnet: str) -> None:
    with pytest.raises(Invalid):
        validate_subnet(subnet)


def test_a_subnet_inside_the_backbone_network_is_refused() -> None:
    with pytest.raises(Invalid) as refused:
        validate_subnet("10.255.3.0/24")
    assert refused.value.message == (
        "La subred del túnel se superpone con la red del backbone entre servidores (10.255.0.0/16)."
    )
    assert validate_subnet("10.254.0.0/24") == "10.254.0.0/24"
