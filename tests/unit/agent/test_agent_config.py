"""Loading the agent's settings from agent.toml and VPN_NODE_* variables, with clear errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from node_agent.config import ConfigError, load_config

BASE_ENV = {"VPN_NODE_CONTROL_URL": "cp.example:7443", "VPN_NODE_ID": "n1", "VPN_NODE_CREDENTIAL": "s3cret"}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "agent.toml"
    path.write_text(text)
    return path


def test_environment_alone_is_enough() -> None:
    config = load_config(BASE_ENV)
    assert config.control_url == "cp.example:7443"
    assert config.interface == "wg0"
    assert config.backend == "kernel"
    assert config.stats_interval == 5.0


def test_file_values_are_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'control_url = "10.0.0.1:7443"\nnode_id = "n2"\ncredential = "c"\nbackend = "userspace"\n'
        'interface = "wg7"\negress_interface = "eth0"\nstate_dir = "/tmp/x"\nstats_interval = 2\n',
    )
    config = load_config({}, path)
    assert (config.node_id, config.backend, config.interface) == ("n2", "userspace", "wg7")
    assert config.egress_interface == "eth0"
    assert config.state_dir == Path("/tmp/x")
    assert config.stats_interval == 2.0


def test_environment_overrides_file(tmp_path: Path) -> None:
    path = write(tmp_path, 'control_url = "a:1"\nnode_id = "file"\ncredential = "c"\ninterface = "wg1"\n')
    config = load_config({"VPN_NODE_ID": "env", "VPN_NODE_INTERFACE": "wg2"}, path)
    assert config.node_id == "env" and config.interface == "wg2"


def test_config_path_from_environment(tmp_path: Path) -> None:
    path = write(tmp_path, 'control_url = "a:1"\nnode_id = "n"\ncredential = "c"\n')
    assert load_config({"VPN_NODE_CONFIG": str(path)}).node_id == "n"


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config({"VPN_NODE_CONFIG": str(tmp_path / "nope.toml"), **BASE_ENV})


def test_missing_required_settings_are_named() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({"VPN_NODE_CONTROL_URL": "a:1"})
    assert "node_id (or VPN_NODE_ID)" in str(info.value)
    assert "credential (or VPN_NODE_CREDENTIAL)" in str(info.value)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"VPN_NODE_CONTROL_URL": "no-port"}, "host:port"),
        ({"VPN_NODE_CONTROL_URL": "host:99999"}, "host:port"),
        ({"VPN_NODE_BACKEND": "ebpf"}, "backend must be one of"),
        ({"VPN_NODE_INTERFACE": "a-very-long-interface-name"}, "interface"),
        ({"VPN_NODE_STATS_INTERVAL": "soon"}, "must be a number"),
        ({"VPN_NODE_STATS_INTERVAL": "-1"}, "must be positive"),
        ({"VPN_NODE_STATS_INTERVAL": "0"}, "must be positive"),
        ({"VPN_NODE_DISCOVERY_INTERVAL": "-2"}, "must be positive"),
        ({"VPN_NODE_TLS_CA": "/nonexistent/ca.pem"}, "tls_ca"),
        ({"VPN_NODE_LOG_LEVEL": "chatty"}, "log_level"),
    ],
)
def test_invalid_values_are_rejected_clearly(override: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config({**BASE_ENV, **override})


def test_a_discovery_interval_of_zero_turns_recognition_off() -> None:
    # docs/agent-protocol.md, "Discovery report": 0 is how an operator turns the lobby's recognition off.
    assert load_config({**BASE_ENV, "VPN_NODE_DISCOVERY_INTERVAL": "0"}).discovery_interval == 0


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "control_url = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config({}, path)


def test_unknown_setting_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, 'control_url = "a:1"\nnode_id = "n"\ncredential = "c"\ncontrol_uri = "typo"\n')
    with pytest.raises(ConfigError, match="control_uri"):
        load_config({}, path)


def test_repr_never_shows_the_credential() -> None:
    config = load_config(BASE_ENV)
    assert "s3cret" not in repr(config) and "s3cret" not in str(config)


def test_packaged_example_is_a_valid_configuration(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[3] / "packaging" / "agent.toml.example"
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    text = example.read_text().replace("/etc/vpn-node/control-ca.pem", str(ca))
    config = load_config({}, write(tmp_path, text))
    assert config.backend == "kernel" and config.interface == "wg0" and config.egress_interface == "eth0"
    assert config.tls_ca == ca


def test_agent_refuses_to_start_with_a_clear_message(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "VPN_NODE_CONFIG": str(write(tmp_path, 'node_id = "n"\n'))}
    proc = subprocess.run(
        [sys.executable, "-m", "node_agent"],
        cwd=Path(__file__).resolve().parents[3],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "configuration error" in proc.stderr and "VPN_NODE_CONTROL_URL" in proc.stderr


def test_a_missing_tls_ca_file_names_the_setting_where_it_was_set_and_the_fix(tmp_path: Path) -> None:
    """The agent, started as the unit starts it, with agent.toml naming a CA file nobody copied: it said only that
    the file did not exist; now it says which setting in which file, and what to put there (or use instead)."""
    ca = tmp_path / "control-ca.pem"
    settings = f'control_url = "vpn.example.net:7443"\nnode_id = "n"\ncredential = "c"\ntls_ca = "{ca}"\n'
    config = write(tmp_path, settings)
    proc = subprocess.run(
        [sys.executable, "-m", "node_agent"], cwd=Path(__file__).resolve().parents[3],
        env={"PATH": "/usr/bin:/bin", "VPN_NODE_CONFIG": str(config)}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert f"tls_ca ({config}) names {ca}, which does not exist" in proc.stderr
    assert "CA certificate (PEM) that signed the control plane's certificate" in proc.stderr
    assert 'tls_ca = "/etc/ssl/certs/ca-certificates.crt"' in proc.stderr


def test_a_tls_ca_that_is_no_certificate_or_a_folder_is_refused_before_any_connection(tmp_path: Path) -> None:
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    with pytest.raises(ConfigError, match=r"environment VPN_NODE_TLS_CA\) names .*key.pem, which holds no PEM cert"):
        load_config({**BASE_ENV, "VPN_NODE_TLS_CA": str(tmp_path / "key.pem")})
    with pytest.raises(ConfigError, match="a directory, not a file"):
        load_config({**BASE_ENV, "VPN_NODE_TLS_CA": str(tmp_path)})
