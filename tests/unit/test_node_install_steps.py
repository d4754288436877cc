"""A node's install steps (packaging/node-install.sh): one text for the manager page and the guide, the backend the
operator's (or the host's) choice, what the agent trusts filled in, and a configuration the agent accepts.

The steps' pieces run for real in `sh`, with the commands that would change this machine (modprobe, apt-get) replaced
by stubs that record their calls, and /etc/vpn-node moved to a scratch folder."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from controlplane.domain.servers.install_steps import (
    NODE_CA_PATH,
    SYSTEM_CA_BUNDLE,
    AgentSource,
    AgentTrust,
    NodeFacts,
    agent_trust,
    guide_block,
    guide_example,
    render,
)
from node_agent.config import load_config

REPO = Path(__file__).resolve().parents[2]
FACTS = NodeFacts("srv-1", "Bogotá 1", "bog1.vpn.test", 51820, "wg0", False, 51821, "")
SOURCE = AgentSource("https://git.example.net/vpn-service.git", "v1.4.0")
CERT = (
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2VydGlmaWNhZG8gZGUgcHJ1ZWJh\nAAAA\n-----END CERTIFICATE-----\n"
)


SYSTEM = AgentTrust("system")


def _steps(trust: AgentTrust = SYSTEM, control_url: str = "vpn.example.net:7443") -> str:
    return render(FACTS, "la-credencial", control_url, trust, SOURCE)[0]


def test_the_guide_shows_exactly_what_the_manager_prints() -> None:
    guide = (REPO / "docs" / "deployment.md").read_text()
    start, end = guide_block(guide)
    assert guide[start:end] == guide_example(), (
        "docs/deployment.md's node steps differ from packaging/node-install.sh: run "
        ".venv/bin/python -m controlplane.domain.servers.install_steps docs/deployment.md"
    )


def _stubs(tmp_path: Path, modprobe_works: bool) -> dict[str, str]:
    """PATH with modprobe and apt-get that only record their calls (in tmp_path/calls)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    for name, status in (("modprobe", 0 if modprobe_works else 1), ("apt-get", 0)):
        (bin_dir / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {calls}\nexit {status}\n')
        (bin_dir / name).chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path)}


def _backend_block(steps: str) -> str:
    start = steps.index("BACKEND=")
    return steps[start : steps.index("\nfi\n", steps.index('if [ "$BACKEND" = kernel ]', start)) + 4]


def _choose_backend(tmp_path: Path, modprobe_works: bool, chosen: str = "") -> tuple[str, list[str], bool]:
    """Run the steps' backend lines; (backend chosen, commands called, whether the module loads at boot)."""
    modules = tmp_path / "modules-load.d"
    modules.mkdir()
    block = _backend_block(_steps()).replace("/etc/modules-load.d", str(modules))
    block = block.replace("BACKEND=\n", f"BACKEND={chosen}\n", 1)
    done = subprocess.run(
        ["sh", "-e", "-c", block + '\necho "chosen=$BACKEND"'],
        env=_stubs(tmp_path, modprobe_works), capture_output=True, text=True, check=True,
    )  # fmt: skip
    calls_file = tmp_path / "calls"
    calls = calls_file.read_text().splitlines() if calls_file.exists() else []
    chosen_now = re.search(r"chosen=(\w+)", done.stdout)
    assert chosen_now is not None
    return chosen_now.group(1), calls, (modules / "wireguard.conf").exists()


def test_a_host_whose_kernel_loads_wireguard_gets_the_kernel_backend_and_the_module_at_boot(tmp_path: Path) -> None:
    backend, calls, at_boot = _choose_backend(tmp_path, modprobe_works=True)
    assert backend == "kernel" and at_boot
    assert not [c for c in calls if "wireguard-go" in c]


def test_a_host_without_the_module_gets_userspace_and_wireguard_go_and_no_module_at_boot(tmp_path: Path) -> None:
    backend, calls, at_boot = _choose_backend(tmp_path, modprobe_works=False)
    assert backend == "userspace" and not at_boot
    assert "apt-get install -y --no-install-recommends wireguard-go" in calls


def test_the_operator_s_choice_of_userspace_loads_no_module_even_where_it_would_load(tmp_path: Path) -> None:
    backend, calls, at_boot = _choose_backend(tmp_path, modprobe_works=True, chosen="userspace")
    assert backend == "userspace" and not at_boot
    assert not [c for c in calls if c.startswith("modprobe")]


def _written_config(tmp_path: Path, steps: str, backend: str = "userspace") -> Path:
    """The steps' agent.toml lines (heredoc, appended backend and egress, CA file) run with /etc/vpn-node moved."""
    etc = tmp_path / "etc-vpn-node"
    etc.mkdir()
    start = steps.index("cat > /etc/vpn-node/agent.toml")
    end = steps.index("echo 'net.ipv4.ip_forward")
    lines = [line for line in steps[start:end].splitlines() if not line.startswith("chown ")]
    script = f"BACKEND={backend}\nEGRESS=eth7\n" + "\n".join(lines).replace("/etc/vpn-node", str(etc))
    subprocess.run(["sh", "-e", "-c", script], check=True)
    return etc / "agent.toml"


def test_behind_nginx_with_a_public_certificate_the_agent_trusts_the_system_bundle(tmp_path: Path) -> None:
    """The guide's way (gRPC on loopback, nginx terminating TLS on 7443): the steps used to leave tls_ca out, and the
    agent spoke plaintext to a TLS port forever."""
    trust = agent_trust("", "vpn.example.net:7443")
    assert trust.mode == "system"
    path = _written_config(tmp_path, _steps(trust))
    config = load_config({}, path)
    assert config.tls_ca == Path(SYSTEM_CA_BUNDLE)
    assert config.backend == "userspace" and config.egress_interface == "eth7"
    assert config.metrics_bind == "127.0.0.1:9586"
    assert config.control_url == "vpn.example.net:7443" and config.credential == "la-credencial"


def test_a_private_ca_is_written_to_the_node_where_tls_ca_points(tmp_path: Path) -> None:
    ca = tmp_path / "grpc-ca.pem"
    ca.write_text(CERT)
    trust = agent_trust(str(ca), "vpn.example.net:7443")
    steps = _steps(trust)
    assert render(FACTS, "c", "vpn.example.net:7443", trust, SOURCE)[1] == []
    path = _written_config(tmp_path, steps)
    assert (path.parent / "control-ca.pem").read_text() == CERT
    assert load_config({}, path).tls_ca == path.parent / "control-ca.pem"
    assert f"tls_ca = {NODE_CA_PATH!r}".replace("'", '"') in steps


def test_an_unreadable_ca_file_is_named_as_missing_instead_of_written_broken(tmp_path: Path) -> None:
    trust = agent_trust(str(tmp_path / "absent.pem"), "vpn.example.net:7443")
    steps, missing = render(FACTS, "c", "vpn.example.net:7443", trust, SOURCE)
    assert missing == ["VPN_AGENT_TLS_CA"]
    assert "# FALTA: la CA del panel (VPN_AGENT_TLS_CA): no se pudo leer" in steps
    assert f"cat > {NODE_CA_PATH}" not in steps
    (tmp_path / "not-pem.pem").write_text("hola\nEOF\nrm -rf /\n")
    assert agent_trust(str(tmp_path / "not-pem.pem"), "x:1").problem.endswith("no es un certificado PEM")


@pytest.mark.parametrize("url", ["unix:/run/vpn/agent.sock", "127.0.0.1:50051", "[::1]:50051", "localhost:50051"])
def test_agents_dialing_loopback_get_plaintext_unless_told(url: str) -> None:
    assert agent_trust("", url).mode == "plaintext"
    assert agent_trust("system", url).mode == "system"
    assert agent_trust("none", "vpn.example.net:7443").mode == "plaintext"
    assert "\ntls_ca" not in _steps(agent_trust("", url), url)


def test_the_node_installs_only_the_agent_s_dependencies_compiled() -> None:
    steps = _steps()
    assert "uv sync --frozen --no-dev --only-group node --compile-bytecode" in steps
    assert ".venv/bin/python -m compileall -q node_agent protos" in steps
    # No hard-coded backend, no unconditional modprobe (the old steps loaded the module on every host).
    assert 'backend = "kernel"' not in steps
    assert not [line for line in steps.splitlines() if line.startswith(("echo wireguard", "modprobe"))]


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_every_variant_of_the_steps_is_a_valid_shell_session(shell: str, tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text(CERT)
    rooms = NodeFacts("srv-2", "Sala 1", "sala.vpn.test", 51820, "wg0", True, 51821, "10.0.0.2")
    variants = [
        render(FACTS, "c", "vpn.example.net:7443", AgentTrust("system"), AgentSource()),  # FALTA
        render(rooms, "c", "vpn.example.net:7443", agent_trust(str(ca), "x:1"), SOURCE),
        render(FACTS, "c", "unix:/run/agent.sock", agent_trust("", "unix:/run/agent.sock"), AgentSource("u", "")),
    ]
    for steps, _ in variants:
        checked = subprocess.run([shell, "-n"], input=steps, capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
