"""The rehearsal's hosts and network: three network namespaces (control plane, node, customer) joined by veth pairs,
two Debian 12 hosts booted with systemd in them, a git server for the code. Everything is torn down at the end."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "netns"))


def require_rehearsal() -> None:
    from hosts import missing_requirements

    reason = missing_requirements()
    if reason is None:
        return
    if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
        pytest.fail(f"deployment rehearsal cannot run: {reason} (VPN_REQUIRE_ALL_TESTS=1 forbids skipping)")
    pytest.skip(f"deployment rehearsal: {reason}")
