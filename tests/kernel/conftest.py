"""Fixtures for the kernel layer: a throwaway network namespace holding a kernel WireGuard link."""

from __future__ import annotations

import errno
import importlib.util
import os
import platform
import shutil
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest
from pyroute2 import AsyncIPRoute, netns
from pyroute2.netlink.exceptions import NetlinkError

RUN_IN_VM_HINT = (
    "run it inside the VM: uv run python tests/kernel/run_in_vm.py -- python -m pytest tests/kernel -m kernel"
)


def skip_or_fail(reason: str) -> NoReturn:
    """Skip with a reason, or fail when CI demands every test run (VPN_REQUIRE_ALL_TESTS=1)."""
    if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
        pytest.fail(f"{reason} (VPN_REQUIRE_ALL_TESTS=1 forbids skipping)", pytrace=False)
    pytest.skip(reason)


@dataclass(frozen=True)
class WireGuardLink:
    """A kernel WireGuard interface, down and unconfigured, inside its own network namespace."""

    netns: str
    ifname: str


def load_wireguard_module() -> str:
    """Try `modprobe wireguard`; return what it said, for the skip reason when it did not work."""
    if shutil.which("modprobe") is None:
        return "modprobe not found"
    result = subprocess.run(["modprobe", "wireguard"], capture_output=True, text=True, check=False)
    return result.stderr.strip()


@pytest.fixture
def network_namespace() -> Iterator[str]:
    """A fresh, empty network namespace, removed afterwards (with every link in it)."""
    if os.geteuid() != 0:
        skip_or_fail("kernel tests need root to create network namespaces; " + RUN_IN_VM_HINT)
    name = f"vpnk-{uuid.uuid4().hex[:8]}"
    netns.create(name)
    try:
        yield name
    finally:
        netns.remove(name)


@pytest.fixture
async def wireguard_link(network_namespace: str) -> AsyncIterator[WireGuardLink]:
    """A kernel WireGuard link 'wgk0' in a fresh namespace; skips where the kernel has no WireGuard."""
    modprobe_said = load_wireguard_module()
    ifname = "wgk0"
    supported = True
    async with AsyncIPRoute(netns=network_namespace) as ipr:
        try:
            await ipr.link("add", ifname=ifname, kind="wireguard")
        except NetlinkError as error:
            if error.code != errno.EOPNOTSUPP:
                raise
            supported = False
    if not supported:
        skip_or_fail(
            f"kernel {platform.release()} has no WireGuard ({modprobe_said or 'link kind unsupported'}); "
            + RUN_IN_VM_HINT
        )
    # Removing the namespace (network_namespace's teardown) removes the link too.
    yield WireGuardLink(netns=network_namespace, ifname=ifname)


@pytest.fixture
def vm_available() -> None:
    """For the runner's own tests, which boot a VM from the host: skip where it cannot boot."""
    if os.environ.get("VPN_KERNEL_VM") == "1":
        skip_or_fail("already inside the VM; the runner's tests boot one from the host")
    if shutil.which("qemu-system-x86_64") is None:
        skip_or_fail("qemu-system-x86_64 missing; run .ci/install-kernel-vm.sh")
    spec = importlib.util.spec_from_file_location("run_in_vm", Path(__file__).with_name("run_in_vm.py"))
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    kernel_missing = None
    try:
        runner.find_kernel()
    except SystemExit as error:
        kernel_missing = str(error)
    if kernel_missing:
        skip_or_fail(kernel_missing)
