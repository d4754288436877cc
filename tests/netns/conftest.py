"""Namespace test fixtures: skip (fail under VPN_REQUIRE_ALL_TESTS=1) without root, tun or wireguard-go."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_process import AgentProcess
from netns import Namespace, missing_requirements


def require_netns() -> None:
    """Skip with the reason, or fail when the run demands every test (CI sets VPN_REQUIRE_ALL_TESTS=1)."""
    reason = missing_requirements()
    if reason is None:
        return
    if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
        pytest.fail(f"namespace test cannot run: {reason} (VPN_REQUIRE_ALL_TESTS=1 forbids skipping)")
    pytest.skip(f"namespace test: {reason}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.netns)


@pytest.fixture(autouse=True)
def _netns_environment() -> None:
    require_netns()


@pytest.fixture(autouse=True)
def _agent_logs_hold_no_secrets() -> Iterator[None]:
    """After each test (agents stopped, namespaces gone: autouse fixtures tear down last), every agent it started
    has its DEBUG log scanned for secrets (AgentProcess.assert_log_holds_no_secrets)."""
    AgentProcess.made.clear()
    yield
    made, AgentProcess.made[:] = list(AgentProcess.made), []
    for agent in made:
        agent.assert_log_holds_no_secrets()


@pytest.fixture
def make_namespace() -> Iterator[type[Namespace]]:
    """Factory fixture: `make_namespace("srv")` makes a namespace deleted after the test."""
    made: list[Namespace] = []

    def factory(prefix: str = "t") -> Namespace:
        ns = Namespace(prefix)
        made.append(ns)
        return ns

    yield factory  # type: ignore[misc]
    for ns in reversed(made):
        ns.delete()
