"""The agent's errors name their fix, made to happen for real (issue 31: "no error names its fix").

- Behind the shipped nginx example's gRPC block (TLS on 7443, self-signed certificate here), in the agent's own
  namespace with the control plane behind it on a unix socket: an agent without `tls_ca` (the old install steps'),
  and one trusting another CA, each log the setting to change; one trusting the right CA gets its state through
  nginx (the setup is sound, so the two failures are the settings').
- On this host, whose kernel has no WireGuard, an agent with `backend = "kernel"` answers the control plane with an
  error naming `backend = "userspace"` and the module, and backs off instead of rebuilding its full state about once
  a second.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from agent_fake_control import FakeControlPlane, serve
from agent_process import AgentProcess
from netns import Namespace, unique_name

from protos import agent_pb2

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "packaging" / "nginx-vpn.conf"
CREDENTIAL = "node-credential-" + base64.b16encode(os.urandom(8)).decode()


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={name}",
         "-addext", "subjectAltName=DNS:vpn.example.net,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _nginx_config(folder: Path, control_socket: Path, cert: Path, key: Path) -> Path:
    """The shipped example as is, but for what a test cannot keep: the certificate, the logs, the upstream (the
    control plane's gRPC on a unix socket), no IPv6 listeners and no brotli module. Ports stay the example's: the
    namespace has its own."""
    site = SITE.read_text()
    changes = [
        ("server 127.0.0.1:50051;", f"server unix:{control_socket};"),
        ("/etc/letsencrypt/live/vpn.example.net/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/vpn.example.net/privkey.pem", str(key)),
        ("/var/log/nginx/", f"{folder}/"),
        ("    listen 7443 ssl http2;\n", "    listen 127.0.0.1:7443 ssl http2;\n"),
    ]
    for old, new in changes:
        assert old in site, f"packaging/nginx-vpn.conf no longer has {old!r}"
        site = site.replace(old, new)
    kept = [line for line in site.splitlines() if not re.match(r"\s*(listen \[::\]|brotli_)", line)]
    temp = "".join(f"  {kind}_temp_path {folder}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi"))
    config = folder / "nginx.conf"
    # user root: the workers reach the control plane's socket inside the test's private folder.
    config.write_text(
        f"daemon off;\nuser root;\nworker_processes 1;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log error;\n"
        f"events {{ worker_connections 64; }}\nhttp {{\n{temp}  scgi_temp_path {folder}/scgi;\n"
        + "\n".join(kept)
        + "\n}\n"
    )
    return config


def _nginx_in(ns: Namespace, config: Path) -> None:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        pytest.fail("nginx is not installed (Debian: apt-get install nginx); the agents' TLS errors need it")
    checked = ns.run([binary, "-t", "-c", str(config)], check=False)
    assert checked.returncode == 0, checked.stderr
    ns.popen([binary, "-c", str(config)], stderr=subprocess.DEVNULL)


async def _log_line(agent: AgentProcess, pattern: str, within: float = 60) -> str:
    """The first line of the agent's log matching `pattern`, waited for."""
    async with asyncio.timeout(within):
        while True:
            found = next((line for line in agent.log().splitlines() if re.search(pattern, line)), None)
            if found:
                return found
            assert agent.running, f"the agent exited:\n{agent.log()[-2000:]}"
            await asyncio.sleep(0.2)


async def test_behind_nginx_a_wrong_or_missing_tls_ca_is_named_with_its_fix(
    make_namespace: type[Namespace], tmp_path: Path
) -> None:
    ns = make_namespace("tls")
    right_cert, right_key = _certificate(tmp_path, "vpn.example.net")
    other_ca, _ = _certificate(tmp_path, "otra-ca")
    control_socket = tmp_path / "control.sock"
    interface = unique_name("wgt")
    state = agent_pb2.FullState(
        serial=1, interface=agent_pb2.InterfaceSpec(name=interface, listen_port=51840, addresses=["10.9.1.1/24"])
    )
    control = FakeControlPlane(lambda: agent_pb2.FullState.FromString(state.SerializeToString()), CREDENTIAL)

    def agent(name: str, tls_ca: Path | None) -> AgentProcess:
        extra = {"VPN_NODE_TLS_CA": str(tls_ca)} if tls_ca else {}
        return AgentProcess(
            ns, tmp_path / name, control_url="127.0.0.1:7443", node_id="node-tls", credential=CREDENTIAL,
            interface=interface, extra_env=extra,
        )  # fmt: skip

    async with serve(control, f"unix:{control_socket}"):
        _nginx_in(ns, _nginx_config(tmp_path, control_socket, right_cert, right_key))

        # The old install steps behind nginx: no tls_ca, plaintext gRPC to nginx's TLS port.
        plaintext = agent("sin-tls-ca", None)
        plaintext.start()
        line = await _log_line(plaintext, "control plane unreachable")
        await asyncio.to_thread(plaintext.stop)
        assert "a TLS port (nginx's 7443) needs tls_ca in agent.toml" in line, line
        assert 'tls_ca = "/etc/ssl/certs/ca-certificates.crt"' in line

        # tls_ca naming a CA that did not sign nginx's certificate.
        wrong = agent("otra-ca", other_ca)
        wrong.start()
        line = await _log_line(wrong, "control plane unreachable")
        await asyncio.to_thread(wrong.stop)
        assert f"the control plane's certificate is not signed by a CA in tls_ca ({other_ca})" in line, line
        assert "VPN_AGENT_TLS_CA" in line

        # The right CA: through nginx to the control plane, state applied.
        right = agent("ca-correcta", right_cert)
        right.start()
        try:
            session = await control.next_session(within=60)
            result = await session.result("op-1", within=60)
            assert result.ok, result.error
        finally:
            assert await asyncio.to_thread(right.stop) == 0
    assert not control.all_sessions[1:], "an agent with the wrong TLS settings reached the control plane"


def _kernel_wireguard_here() -> bool:
    with Namespace("kprobe") as probe:
        return probe.run(["ip", "link", "add", "wgprobe", "type", "wireguard"], check=False).returncode == 0


async def test_a_kernel_backend_on_a_host_without_the_module_names_the_fix_and_backs_off(
    make_namespace: type[Namespace], tmp_path: Path
) -> None:
    if _kernel_wireguard_here():
        message = "this host's kernel has WireGuard: a kernel backend cannot fail here as on a userspace-only host"
        if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    ns = make_namespace("kern")
    interface = unique_name("wgk")
    state = agent_pb2.FullState(
        serial=1, interface=agent_pb2.InterfaceSpec(name=interface, listen_port=51850, addresses=["10.9.2.1/24"])
    )
    control = FakeControlPlane(lambda: agent_pb2.FullState.FromString(state.SerializeToString()), CREDENTIAL)
    target = f"unix:{tmp_path / 'control.sock'}"
    # Delays from 0.5 s doubling to 4 s: the old agent came back about every 0.5 s (its quick reconnects), 15 or more
    # full states in the 10 s watched below.
    agent = AgentProcess(
        ns, tmp_path, control_url=target, node_id="node-kernel", credential=CREDENTIAL, interface=interface,
        backend="kernel", extra_env={"VPN_NODE_BACKOFF_INITIAL": "0.5", "VPN_NODE_BACKOFF_MAX": "4"},
    )  # fmt: skip
    async with serve(control, target):
        agent.start()
        try:
            first = await control.next_session(within=60)
            result = await first.result("op-1", within=60)
            loop = asyncio.get_running_loop()
            started = [loop.time()]
            deadline = started[0] + 10
            while (left := deadline - loop.time()) > 0:
                try:
                    await control.next_session(within=left)
                except TimeoutError:
                    break
                started.append(loop.time())
        finally:
            assert await asyncio.to_thread(agent.stop) == 0

    assert not result.ok
    assert "Operation not supported" in result.error
    assert 'set backend = "userspace" in /etc/vpn-node/agent.toml' in result.error
    assert "modprobe wireguard" in result.error and "/etc/modules-load.d/wireguard.conf" in result.error
    # Backing off: a handful of full states in 10 s, the waits doubling up to the cap.
    gaps = [b - a for a, b in itertools.pairwise(started)]
    assert 4 <= len(started) <= 7, gaps  # delays in [0.5, 1], [1, 2], [2, 4], then [2, 4] again
    assert gaps[2] >= 1.5 * gaps[0], gaps
    log = agent.log()
    assert re.search(r"applying the control plane's state failed 1 time\(s\) in a row .*full resync in", log)
    assert "applying the control plane's state failed 3 time(s) in a row" in log
