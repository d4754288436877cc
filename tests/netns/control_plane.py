"""The real control plane as a subprocess for namespace tests: HTTP on loopback, gRPC on a Unix socket.

A Unix socket lives in the filesystem, not in a network namespace, so agents inside server namespaces reach it
without any route to the host.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
ADMIN = ("jefa", "jefa-clave-segura-1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ControlPlane:
    def __init__(self, workdir: Path, operation_timeout: float = 30, database_url: str = "") -> None:
        """`database_url`: the database to serve from (a benchmark's PostgreSQL one); by default SQLite in `workdir`."""
        self.workdir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.grpc_target = f"unix:{workdir / 'grpc.sock'}"
        self.log_path = workdir / "controlplane.log"
        self.env = {
            **os.environ,
            "VPN_VAR_DIR": str(workdir / "var"),
            "VPN_HTTP_BIND": f"127.0.0.1:{self.port}",
            "VPN_GRPC_BIND": self.grpc_target,
            "VPN_CLIENT_URL": self.url,
            "VPN_OPERATION_TIMEOUT": str(operation_timeout),
            "VPN_ADMIN_PASSWORD": ADMIN[1],
            "PYTHONPATH": str(REPO),
        }
        self.env.pop("VPN_DATABASE_URL", None)
        if database_url:
            self.env["VPN_DATABASE_URL"] = database_url
        self.proc: subprocess.Popen[bytes] | None = None

    def _cli(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "controlplane", *args], env=self.env, cwd=REPO, check=True, capture_output=True
        )

    def start(self) -> None:
        self._cli("migrate")
        self._cli("create-admin", ADMIN[0])
        self.serve()

    def crash_and_restart(self) -> None:
        """SIGKILL (no cleanup, as a power cut or an OOM kill), then serve again on the same database and port."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()
        self.serve()

    def serve(self) -> None:
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controlplane", "serve"],
            env=self.env,
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/client/status", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()  # a process that never served must not outlive the test
        raise RuntimeError(f"control plane did not start:\n{self.log()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""


class Api:
    """A logged-in HTTP client for one area (customer or admin)."""

    def __init__(self, base_url: str, username: str, password: str, admin: bool = False) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=10)
        path = "/api/admin/login" if admin else "/api/client/login"
        answer = self.http.post(path, json={"username": username, "password": password})
        answer.raise_for_status()
        self.access = answer.json()["access"]
        self.http.headers["Authorization"] = f"Bearer {self.access}"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.http, name)
