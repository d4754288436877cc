"""The files operators copy from packaging/: the examples name real settings, the units pass systemd's checks."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from controlplane.settings import Settings
from node_agent.config import load_config
from tests.conftest import skip_or_fail

PACKAGING = Path(__file__).resolve().parents[2] / "packaging"
SETTINGS_SOURCE = Path(__file__).resolve().parents[2] / "controlplane" / "settings.py"


def test_the_agent_toml_example_is_a_complete_valid_configuration(tmp_path: Path) -> None:
    ca = tmp_path / "control-ca.pem"  # the example names /etc/vpn-node/control-ca.pem, absent here
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    config = load_config({"VPN_NODE_TLS_CA": str(ca)}, PACKAGING / "agent.toml.example")
    assert config.control_url == "control.example.net:7443"
    assert config.backend == "kernel"
    assert config.metrics_bind == "127.0.0.1:9586"


def test_the_environment_example_names_only_settings_the_control_plane_reads() -> None:
    known = set(re.findall(r'get\("([A-Z_]+)"', SETTINGS_SOURCE.read_text()))
    named = set(re.findall(r"^#?VPN_([A-Z_]+)=", (PACKAGING / "controlplane.env.example").read_text(), re.M))
    assert named, "no settings found in the example"
    assert named - known == set()
    unit = (PACKAGING / "vpn-controlplane.service").read_text()
    assert set(re.findall(r"^Environment=VPN_([A-Z_]+)=", unit, re.M)) - known == set()


def test_the_environment_example_leaves_the_agent_repository_for_the_operator_to_set() -> None:
    """A placeholder repository would fill the install steps' clone line with an address nobody can clone and hide
    the manager's FALTA warning: copied as is, the example leaves it unset (and marked EDIT)."""
    text = (PACKAGING / "controlplane.env.example").read_text()
    env = dict(re.findall(r"^(VPN_[A-Z_]+)=(.*)$", text, re.M))
    settings = Settings.from_env(env)
    assert settings.agent_repository == "" and settings.agent_ref == ""
    assert re.search(r"^# EDIT: where those steps fetch the agent's code", text, re.M)
    assert Settings.from_env({"VPN_AGENT_REF": " v1.4.0 "}).agent_ref == "v1.4.0"


def test_the_environment_example_serves_grpc_the_guide_s_way() -> None:
    """Copied as is, the example must not ask for TLS files the guide never creates, nor take nginx's port 7443:
    plaintext gRPC on loopback behind nginx is the active default."""
    env = dict(re.findall(r"^(VPN_[A-Z_]+)=(.*)$", (PACKAGING / "controlplane.env.example").read_text(), re.M))
    settings = Settings.from_env(env)
    assert settings.grpc_bind == "127.0.0.1:50051"
    assert "VPN_GRPC_TLS_CERT" not in env and "VPN_GRPC_TLS_KEY" not in env
    upstream = re.search(r"upstream vpn_grpc \{\s*server ([0-9.:]+);", (PACKAGING / "nginx-vpn.conf").read_text())
    assert upstream is not None and upstream.group(1) == settings.grpc_bind


def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        skip_or_fail("systemd-analyze is not installed (Debian package systemd)")
    units = []
    for name in ("vpn-controlplane.service", "vpn-node-agent.service"):
        # The interpreter path must exist for verify; the rest of the unit is checked as shipped.
        text = (PACKAGING / name).read_text().replace("/opt/vpn-service/.venv/bin/python", sys.executable)
        (tmp_path / name).write_text(text)
        units.append(str(tmp_path / name))
    done = subprocess.run(["systemd-analyze", "verify", *units], capture_output=True, text=True, check=False)
    complaints = [line for line in (done.stdout + done.stderr).splitlines() if "vpn-" in line]
    assert done.returncode == 0 and complaints == [], done.stdout + done.stderr


def test_the_nginx_example_serves_assets_precompressed_and_cached_for_a_year(tmp_path: Path) -> None:
    """The example's `location /assets/` block, as shipped, in a throwaway nginx on a free loopback port."""
    if shutil.which("nginx") is None:
        skip_or_fail("nginx is not installed (Debian package nginx)")
    import socket
    import time

    import httpx

    block = re.search(r"\n    location /assets/ \{.*?\n    \}\n", (PACKAGING / "nginx-vpn.conf").read_text(), re.S)
    assert block is not None
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    script = b"console.log('hola');\n" * 200
    (dist / "assets" / "index-Ab12.js").write_bytes(script)
    (dist / "assets" / "index-Ab12.js.gz").write_bytes(b"gzip twin")
    (dist / "assets" / "index-Ab12.js.br").write_bytes(b"brotli twin")
    location = block.group(0).replace("/opt/vpn-service/webui/dist", str(dist))
    modules = Path("/etc/nginx/modules-enabled")
    if not any("brotli" in p.name for p in (modules.iterdir() if modules.is_dir() else [])):
        # An extra Debian package, as docs/deployment.md says; .ci/run installs it.
        skip_or_fail("nginx's brotli module is not installed (Debian package libnginx-mod-http-brotli-static)")
    # Debian's module files load `modules/...` relative to the prefix, which is this test's folder here.
    (tmp_path / "modules").symlink_to("/usr/lib/nginx/modules")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "nginx.conf").write_text(
        f"include {modules}/*.conf;\n"
        * modules.is_dir()
        # Workers as root: pytest's temporary folders are private to this user.
        + f"user root; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log; events {{}}\n"
        f"http {{ include /etc/nginx/mime.types; access_log off; client_body_temp_path {tmp_path};\n"
        f"proxy_temp_path {tmp_path}; fastcgi_temp_path {tmp_path}; uwsgi_temp_path {tmp_path}; "
        f"scgi_temp_path {tmp_path};\n"
        f"server {{ listen 127.0.0.1:{port};\n{location}\n}} }}\n"
    )
    nginx = subprocess.Popen(
        ["nginx", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
        stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}/assets/index-Ab12.js"
        for _ in range(100):
            try:
                with httpx.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as answer:
                    body = b"".join(answer.iter_raw())
                break
            except httpx.ConnectError:
                assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""
                time.sleep(0.1)
        assert answer.status_code == 200
        assert answer.headers["content-encoding"] == "gzip" and body == b"gzip twin"
        assert answer.headers["vary"] == "Accept-Encoding"
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert answer.headers["strict-transport-security"] == "max-age=31536000"  # not lost to add_header
        brotli = httpx.get(url, headers={"Accept-Encoding": "gzip, br"})  # httpx leaves an unknown coding as is
        assert brotli.headers["content-encoding"] == "br" and brotli.headers["vary"] == "Accept-Encoding"
        assert brotli.headers["cache-control"] == "public, max-age=31536000, immutable"
        plain = httpx.get(url, headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == script
        assert httpx.get(f"http://127.0.0.1:{port}/assets/nada.js").status_code == 404
    finally:
        nginx.terminate()
        nginx.wait(10)
