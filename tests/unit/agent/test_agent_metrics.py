"""The agent's metrics: which peers count as connected, and the listener's setting."""

from __future__ import annotations

import pytest

from node_agent.config import ConfigError, load_config
from node_agent.metrics import AgentMetrics

BASE_ENV = {"VPN_NODE_CONTROL_URL": "cp.example:7443", "VPN_NODE_ID": "n1", "VPN_NODE_CREDENTIAL": "s3cret"}


def test_only_handshakes_of_the_last_three_minutes_count_as_connected() -> None:
    metrics = AgentMetrics()
    now = 1_000_000.0
    # never, 10 s ago, 179 s ago, 181 s ago, an hour ago
    metrics.record_handshakes([0, int(now) - 10, int(now) - 179, int(now) - 181, int(now) - 3600], now=now)
    assert metrics.registry.get_sample_value("vpn_agent_peers_recent_handshake") == 2


def test_failed_applies_are_counted_beside_their_duration() -> None:
    metrics = AgentMetrics()
    metrics.record_apply("delta", 0.002, ok=True)
    metrics.record_apply("delta", 0.004, ok=False)
    assert metrics.registry.get_sample_value("vpn_agent_apply_duration_seconds_count", {"kind": "delta"}) == 2
    assert metrics.registry.get_sample_value("vpn_agent_apply_failures_total", {"kind": "delta"}) == 1


def test_the_listener_is_off_by_default_and_set_by_environment() -> None:
    assert load_config(BASE_ENV).metrics_bind == ""
    assert load_config({**BASE_ENV, "VPN_NODE_METRICS_BIND": "127.0.0.1:9586"}).metrics_bind == "127.0.0.1:9586"


def test_a_listener_address_without_a_port_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match="metrics_bind must be host:port"):
        AgentMetrics().serve("127.0.0.1")
