"""The install steps say which lines only work on the demo's machine (docs/deployment.md, "The demo")."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.services import Services
from tests.api.manager.world import build_world

NEW = {"name": "Bogotá 1", "address": "bog1.vpn.test", "tunnel_subnet": "10.60.0.0/24", "ubication": "Bogotá"}
DEMO_SOCKET = "unix:/var/lib/vpn-demo/agent.sock"  # what `make run` gives its agents (controlplane/demo/run.py)


@pytest.fixture
def settings_overrides(request: pytest.FixtureRequest) -> dict[str, Any]:
    return {"grpc_public_url": request.param}


def _toml(install: str) -> dict[str, Any]:
    start = install.index("<<'EOF'\n") + len("<<'EOF'\n")
    return tomllib.loads(install[start : install.index("\nEOF\n", start)])


@pytest.mark.parametrize("settings_overrides", [DEMO_SOCKET, "127.0.0.1:50051"], indirect=True)
async def test_a_panel_only_this_machine_reaches_marks_its_lines_demo_only(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    install = (await client.post("/api/admin/servers", json=NEW, headers=world.admin)).json()["install"]
    lines = install.splitlines()
    # The operator reads, before any command, that this is the demo and what to set for a real node.
    notice = next(i for i, line in enumerate(lines) if "SOLO DEMO" in line)
    assert notice < next(i for i, line in enumerate(lines) if line.startswith("apt-get"))
    assert "VPN_GRPC_PUBLIC_URL" in install
    # The one line that would not work on a real server says so where it stands; the file still parses.
    [marked] = [line for line in lines if line.startswith("control_url")]
    assert marked.endswith("# SOLO DEMO: solo se alcanza desde esta máquina")
    assert _toml(install)["control_url"] == services.settings.grpc_public_url
    assert [line for line in lines if "SOLO DEMO" in line and not line.startswith("#")] == [marked]


@pytest.mark.parametrize("settings_overrides", ["vpn.example.com:50051"], indirect=True)
async def test_a_panel_nodes_can_reach_has_no_demo_lines(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    install = (await client.post("/api/admin/servers", json=NEW, headers=world.admin)).json()["install"]
    assert "SOLO DEMO" not in install
    assert _toml(install)["control_url"] == "vpn.example.com:50051"
