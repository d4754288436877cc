"""The demo (fake gateways, a simulated node, published passwords) refuses settings that look like production."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controlplane.demo.qvapay import FakeQvaPay
from controlplane.demo.remesita import FakeRemesita
from controlplane.demo.run import ProductionRefused, _node_key, demo_settings, production_signs
from controlplane.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def _signs(**env: str) -> list[str]:
    full = {f"VPN_{name}": value for name, value in env.items()}
    return production_signs(Settings.from_env(full), full)


def test_a_laptop_with_nothing_set_may_run_the_demo() -> None:
    assert _signs() == []
    assert _signs(HTTP_BIND="127.0.0.1:9000", VAR_DIR="/tmp/x", CLIENT_URL="http://localhost:9000") == []
    assert _signs(HTTP_BIND="[::1]:9000", GRPC_BIND="unix:/tmp/x/agent.sock") == []


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"DATABASE_URL": "postgresql+asyncpg://vpn@db/vpn"}, "VPN_DATABASE_URL"),
        ({"HTTP_BIND": "0.0.0.0:8000"}, "VPN_HTTP_BIND"),
        ({"HTTP_BIND": "203.0.113.5:80"}, "VPN_HTTP_BIND"),
        ({"GRPC_BIND": "0.0.0.0:50051"}, "VPN_GRPC_BIND"),
        ({"GRPC_TLS_CERT": "/etc/vpn/grpc.pem"}, "VPN_GRPC_TLS_CERT"),
        ({"CLIENT_URL": "https://vpn.example.org"}, "VPN_CLIENT_URL"),
        ({"QVAPAY_APP_ID": "real-app"}, "VPN_QVAPAY_APP_ID"),
        ({"REMESITA_API_KEY": "real-key"}, "VPN_REMESITA_API_KEY"),
        ({"SMTP_URL": "smtp://mail.example.org:587"}, "VPN_SMTP_URL"),
        ({"CAPTCHA_SECRET": "0x123"}, "VPN_CAPTCHA_SECRET"),
    ],
)
def test_each_production_sign_is_named(env: dict[str, str], named: str) -> None:
    signs = _signs(**env)
    assert len(signs) == 1
    assert signs[0].startswith(named)


def test_the_demo_settings_refuse_before_anything_is_pointed_at_the_fakes() -> None:
    env = {"VPN_DATABASE_URL": "postgresql+asyncpg://vpn@db/vpn", "VPN_HTTP_BIND": "0.0.0.0:8000"}
    with FakeQvaPay() as qvapay, FakeRemesita() as remesita, pytest.raises(ProductionRefused) as refused:
        demo_settings(env, qvapay, remesita)
    assert "VPN_DATABASE_URL" in str(refused.value) and "VPN_HTTP_BIND" in str(refused.value)


def test_the_demo_settings_follow_the_bind_and_keep_agents_off_tcp(tmp_path: Path) -> None:
    env = {"VPN_HTTP_BIND": "127.0.0.1:18123", "VPN_VAR_DIR": str(tmp_path)}
    with FakeQvaPay() as qvapay, FakeRemesita() as remesita:
        settings = demo_settings(env, qvapay, remesita)
    assert settings.client_url == "http://127.0.0.1:18123"
    assert {"http://127.0.0.1:18123", "http://localhost:18123"} <= set(settings.allowed_origins)
    assert settings.grpc_bind == settings.grpc_public_url == f"unix:{tmp_path.resolve() / 'agent.sock'}"
    assert settings.qvapay_base_url == qvapay.base_url and settings.remesita_base_url == remesita.base_url


def test_the_command_refuses_production_settings_and_touches_nothing(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("VPN_")},
        "VPN_VAR_DIR": str(tmp_path / "var"),
        "VPN_HTTP_BIND": "0.0.0.0:18124",
        "VPN_QVAPAY_APP_ID": "real-app",
    }
    done = subprocess.run(
        [sys.executable, "-m", "controlplane", "demo"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "parecen de producción" in done.stderr
    assert "VPN_HTTP_BIND=0.0.0.0:18124" in done.stderr and "VPN_QVAPAY_APP_ID" in done.stderr
    assert not (tmp_path / "var").exists()  # no database, no key file: nothing was started


def test_the_simulated_node_keeps_its_key_so_configurations_survive_a_restart(tmp_path: Path) -> None:
    first = _node_key(tmp_path / "var" / "secret.key")
    assert _node_key(tmp_path / "var" / "secret.key") == first
    assert (tmp_path / "var" / "demo-node.key").stat().st_mode & 0o777 == 0o600
    assert _node_key(tmp_path / "other" / "secret.key") != first


def test_a_tcp_grpc_bind_is_kept_and_the_real_node_dials_a_socket_beside_it(tmp_path: Path) -> None:
    from controlplane.demo.run import node_control_url

    socket = f"unix:{tmp_path.resolve() / 'agent.sock'}"
    with FakeQvaPay() as qvapay, FakeRemesita() as remesita:
        tcp = demo_settings({"VPN_VAR_DIR": str(tmp_path), "VPN_GRPC_BIND": "127.0.0.1:50999"}, qvapay, remesita)
        unix = demo_settings({"VPN_VAR_DIR": str(tmp_path)}, qvapay, remesita)
    assert tcp.grpc_bind == tcp.grpc_public_url == "127.0.0.1:50999"
    assert tcp.grpc_local_socket == socket and node_control_url(tcp) == socket
    assert unix.grpc_local_socket == "" and node_control_url(unix) == socket
