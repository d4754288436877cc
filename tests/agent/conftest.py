"""Backend contract fixtures: one suite, parametrized over the userspace and kernel WireGuard backends."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

# The namespace helpers live with the netns layer; this suite reuses them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "netns"))

from netns import Namespace, missing_requirements, unique_name

from node_agent.backends import Backend, make_backend


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
        pytest.fail(f"{reason} (VPN_REQUIRE_ALL_TESTS=1 forbids skipping)")
    pytest.skip(reason)


def _kernel_wireguard_missing() -> str | None:
    """Try `ip link add type wireguard` in a scratch namespace: the only reliable test for the module."""
    if shutil.which("modprobe"):
        subprocess.run(["modprobe", "wireguard"], capture_output=True, check=False)
    ns = Namespace("kchk")
    try:
        proc = ns.run(["ip", "link", "add", "wgcheck", "type", "wireguard"], check=False)
        if proc.returncode != 0:
            return f"kernel WireGuard unavailable here (ip link add type wireguard: {proc.stderr.strip()})"
        return None
    finally:
        ns.delete()


_KERNEL_REASON: list[str | None] = []


@pytest.fixture(
    params=[
        pytest.param("userspace", id="userspace"),
        pytest.param("kernel", id="kernel", marks=pytest.mark.kernel),
    ]
)
def backend_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "kernel":
        reason = missing_requirements(tools=("ip", "wg"), tun=False)
    else:
        reason = missing_requirements(tools=("ip", "wg", "wireguard-go"))
    if reason is not None:
        _skip_or_fail(f"backend contract: {reason}")
    if request.param == "kernel":
        if not _KERNEL_REASON:
            _KERNEL_REASON.append(_kernel_wireguard_missing())
        if _KERNEL_REASON[0] is not None:
            _skip_or_fail(_KERNEL_REASON[0])
    return str(request.param)


@pytest.fixture
def namespace() -> Iterator[Namespace]:
    with Namespace("bk") as ns:
        yield ns


@pytest.fixture
async def backend(backend_kind: str, namespace: Namespace) -> AsyncIterator[Backend]:
    name = unique_name("wgt")
    namespace.wireguard_interfaces.add(name)
    backend = make_backend(backend_kind, name, netns=namespace.name)
    try:
        yield backend
    finally:
        # The namespace fixture's cleanup removes whatever this leaves behind (it knows the interface name).
        with contextlib.suppress(Exception):
            await backend.delete_interface()
        await backend.close()
