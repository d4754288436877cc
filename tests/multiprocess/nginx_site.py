"""The shipped nginx example (packaging/nginx-vpn.conf) run by a real nginx, with TLS, in a temporary folder.

Only what a test cannot keep is changed: loopback ports instead of 80 and 443, a self-signed certificate (openssl)
instead of Let's Encrypt's, logs in the folder, no IPv6 listeners, no brotli module, and no gRPC server block (what
the agents' port does is tested elsewhere). Every change must apply, so a reworded example fails here rather than
going untested."""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import skip_or_fail
from tests.multiprocess.cluster import REPO, free_port

SITE = REPO / "packaging" / "nginx-vpn.conf"
NAME = "vpn.example.net"


@dataclass
class Certificate:
    cert: Path
    key: Path


def self_signed(folder: Path) -> Certificate:
    """A certificate for the example's name and 127.0.0.1 (clients verify it against itself)."""
    cert, key = folder / "fullchain.pem", folder / "privkey.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={NAME}",
         "-addext", f"subjectAltName=DNS:{NAME},IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return Certificate(cert, key)


def _without_grpc_server(site: str) -> str:
    """The server blocks (at column 0, closed by a `}` at column 0) without the one that passes gRPC."""
    blocks = re.findall(r"^server \{.*?^\}\n", site, re.S | re.M)
    assert any("grpc_pass" in block for block in blocks), "the example no longer has its gRPC server block"
    for block in blocks:
        if "grpc_pass" in block:
            site = site.replace(block, "")
    return site


def render(folder: Path, upstream: str, certificate: Certificate) -> tuple[Path, int, int]:
    """nginx.conf in `folder` for the example in front of `upstream` (host:port); its HTTPS and HTTP ports."""
    https_port, http_port = free_port(), free_port()
    site = SITE.read_text()
    changes = [
        ("server 127.0.0.1:8000;", f"server {upstream};"),
        ("    listen 80;\n", f"    listen 127.0.0.1:{http_port};\n"),
        ("    listen 443 ssl http2;\n", f"    listen 127.0.0.1:{https_port} ssl http2;\n"),
        (f"/etc/letsencrypt/live/{NAME}/fullchain.pem", str(certificate.cert)),
        (f"/etc/letsencrypt/live/{NAME}/privkey.pem", str(certificate.key)),
        ("/var/log/nginx/", f"{folder}/"),
    ]
    for old, new in changes:
        assert old in site, f"packaging/nginx-vpn.conf no longer has {old!r}"
        site = site.replace(old, new)
    kept = [
        line for line in _without_grpc_server(site).splitlines() if not re.match(r"\s*(listen \[::\]|brotli_)", line)
    ]
    temp = "".join(
        f"  {kind}_temp_path {folder}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    config = folder / "nginx.conf"
    config.write_text(
        f"daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log error;\n"
        f"events {{ worker_connections 64; }}\nhttp {{\n{temp}" + "\n".join(kept) + "\n}\n"
    )
    return config, https_port, http_port


@contextlib.contextmanager
def running(config: Path, port: int) -> Iterator[None]:
    """nginx (Debian's /usr/sbin/nginx) with `config`, once it accepts connections on `port`."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if binary is None:
        skip_or_fail("nginx is not installed (Debian: apt-get install nginx)")
    assert binary is not None
    checked = subprocess.run([binary, "-t", "-c", str(config)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
    proc = subprocess.Popen([binary, "-c", str(config)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.1)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=10)
