"""Real control-plane processes sharing one PostgreSQL database and one Redis, as on several hosts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
ADMIN = ("jefa", "jefa-clave-segura-1")
# How long a test's HTTP call may take. The processes hash on nice-19 threads (the point: a login storm must not
# starve the event loop), so on a CI machine running other layers side by side a hash gets a sliver of a core: at a
# load average of 20, a password change (two hashes at the production cost) took over 60 s. Hence the tests'
# processes hash at a small argon2 cost (SMALL_ARGON2; the cost changes nothing they check, and benchmarks keep the
# production one), and this is a bound, not a figure: the tests assert what happens, not when.
HTTP_TIMEOUT = 60
SMALL_ARGON2 = {"VPN_ARGON2_TIME_COST": "1", "VPN_ARGON2_MEMORY_KIB": "8192", "VPN_ARGON2_PARALLELISM": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ControlPlaneProcess:
    """`python -m controlplane serve` on free loopback ports; `shared` settings are the same for every process."""

    def __init__(self, name: str, workdir: Path, shared: dict[str, str]) -> None:
        self.name = name
        self.http_port = free_port()
        self.grpc_port = free_port()
        self.url = f"http://127.0.0.1:{self.http_port}"
        self.grpc_target = f"127.0.0.1:{self.grpc_port}"
        self.log_path = workdir / f"{name}.log"
        self.env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "VPN_VAR_DIR": str(workdir / name),
            "VPN_HTTP_BIND": f"127.0.0.1:{self.http_port}",
            "VPN_GRPC_BIND": self.grpc_target,
            "VPN_LOG_FORMAT": "json",
            **shared,
        }
        self.proc: subprocess.Popen[bytes] | None = None

    def cli(self, *args: str) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "controlplane", *args], env=self.env, cwd=REPO, capture_output=True, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"controlplane {' '.join(args)} failed:\n{done.stderr.decode()}")

    def start(self, argv: list[str] | None = None) -> None:
        """Start `python -m controlplane serve` (or `argv` after the interpreter: benchmarks add a route)."""
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, *(argv or ["-m", "controlplane", "serve"])],
                env=self.env,
                cwd=REPO,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, within: float = 90) -> None:
        # Generous: two interpreters importing at once beside other test layers on two cores take a while.
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.proc is not None and self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"control plane {self.name} did not become ready:\n{self.log()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
