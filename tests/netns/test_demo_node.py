"""The demo's node (docs/deployment.md, "The demo"), run as `python -m controlplane demo` from this checkout.

As root with wireguard-go the demo runs the real agent in namespaces of its own; a demo killed outright (SIGKILL,
so nothing of its own cleans up) leaves them behind, and the next demo's start removes them. With
VPN_DEMO_NODE=simulated the in-process simulated node runs instead and the manager says so. Once the demo customer
changed the password, the real node runs without the demo client (which would log in with the published one).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from netns import wait_for

from controlplane.demo.data import DEMO_ADMIN, DEMO_CUSTOMER, DEMO_SERVER

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DemoProcess:
    def __init__(self, var_dir: Path, **env: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = var_dir.parent / f"demo-{self.port}.log"
        environment = {k: v for k, v in os.environ.items() if not k.startswith("VPN_")}
        environment |= {"VPN_HTTP_BIND": f"127.0.0.1:{self.port}", "VPN_VAR_DIR": str(var_dir), **env}
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "controlplane", "demo"], cwd=REPO, env=environment, stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        wait_for(self._started, timeout=120, interval=0.5, message=f"the demo to start ({self.log})")

    def _started(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"the demo exited ({self.proc.returncode}):\n{self.output()[-3000:]}")
        return "Application startup complete" in self.output()

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def namespaces(self) -> list[str]:
        return re.findall(r"vpn-demo-\d+-[0-9a-f]+-(?:node|client)", self.output())

    def stop(self, sig: int = signal.SIGINT) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                pytest.fail(f"the demo did not end on signal {sig}")

    def server(self) -> dict[str, object]:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            login = http.post("/api/admin/login", json={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]})
            assert login.status_code == 200, login.text
            servers = http.get("/api/admin/servers", headers={"Authorization": f"Bearer {login.json()['access']}"})
            server: dict[str, object] = next(s for s in servers.json() if s["name"] == DEMO_SERVER)
            return server


def _existing_namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _processes_in(namespace: str) -> list[str]:
    done = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False)
    return done.stdout.split()


def _running(pid: str) -> bool:
    try:
        return not Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (FileNotFoundError, IndexError):
        return False


@pytest.fixture
def demos(tmp_path: Path) -> Iterator[list[DemoProcess]]:
    started: list[DemoProcess] = []
    yield started
    for demo in started:
        with contextlib.suppress(ProcessLookupError):
            demo.stop(signal.SIGKILL)
    # Whatever a failed test left: the next demo's start would remove it too, but not before it runs.
    from controlplane.demo.real_node import remove_stale_namespaces

    remove_stale_namespaces()


def test_a_killed_demo_leaves_namespaces_that_the_next_start_removes(tmp_path: Path, demos: list[DemoProcess]) -> None:
    var_dir = tmp_path / "var"
    first = DemoProcess(var_dir)
    demos.append(first)
    node_ns, client_ns = sorted(first.namespaces(), key=lambda n: not n.endswith("-node"))
    assert node_ns.endswith("-node") and client_ns.endswith("-client")
    wait_for(lambda: first.server()["online"], timeout=60, interval=1, message="the real agent online")
    assert first.server()["backend"] == "userspace"
    wait_for(lambda: len(_processes_in(node_ns)) >= 2, timeout=30, message="the agent and its wireguard-go")

    first.stop(signal.SIGKILL)  # nothing of the demo's own runs: its namespaces and agent stay behind
    assert {node_ns, client_ns} <= _existing_namespaces()
    left = _processes_in(node_ns)
    assert left, "the agent and wireguard-go outlive a killed demo"

    second = DemoProcess(var_dir)
    demos.append(second)
    assert not {node_ns, client_ns} & _existing_namespaces()
    # SIGKILL takes effect a moment later, and an orphan stays a zombie until whoever adopted it reaps it.
    wait_for(lambda: not [pid for pid in left if _running(pid)], timeout=10, message="the old agent gone")
    wait_for(lambda: second.server()["online"], timeout=60, interval=1, message="the second demo's agent online")

    second.stop()  # Ctrl+C
    assert not set(second.namespaces()) & _existing_namespaces()
    short_id = second.namespaces()[0].split("-")[3]
    assert not list(Path("/var/run/wireguard").glob(f"vd{short_id}*"))


def test_the_simulated_node_runs_when_asked_and_the_manager_says_so(tmp_path: Path, demos: list[DemoProcess]) -> None:
    before = _existing_namespaces()
    demo = DemoProcess(tmp_path / "var", VPN_DEMO_NODE="simulated")
    demos.append(demo)
    assert "nodo simulado (backend 'demo'; sin agente real: VPN_DEMO_NODE=simulated)" in demo.output()
    wait_for(lambda: demo.server()["online"], timeout=60, interval=1, message="the simulated node online")
    server = demo.server()
    assert server["backend"] == "demo" and "nodo simulado" in str(server["agent_version"])
    assert not [ns for ns in _existing_namespaces() - before if ns.startswith(f"vpn-demo-{demo.proc.pid}-")]
    demo.stop()
    assert demo.proc.returncode == 0


def test_after_the_customer_changed_the_password_the_real_node_runs_without_the_demo_client(
    tmp_path: Path, demos: list[DemoProcess]
) -> None:
    var_dir = tmp_path / "var"
    first = DemoProcess(var_dir)
    demos.append(first)
    with httpx.Client(base_url=first.url, timeout=30) as http:
        login = http.post("/api/client/login", json={"username": DEMO_CUSTOMER[0], "password": DEMO_CUSTOMER[1]})
        assert login.status_code == 200, login.text
        changed = http.patch(
            "/api/client/settings",
            json={"old_password": DEMO_CUSTOMER[1], "new_password": "mi-propia-clave-5678"},
            headers={"Authorization": f"Bearer {login.json()['access']}"},
        )
        assert changed.status_code == 200, changed.text
    first.stop()

    second = DemoProcess(var_dir)
    demos.append(second)
    output = second.output()
    # The demo client would log in with the published password, which no longer opens the account: it is not started.
    assert "sin cliente de prueba: la contraseña del cliente demo cambió" in output
    assert "contraseña cambiada por usted" in output and f"'{DEMO_CUSTOMER[1]}'" not in output
    wait_for(lambda: second.server()["online"], timeout=60, interval=1, message="the real agent online")
    assert second.server()["backend"] == "userspace"
    second.stop()
    assert not set(second.namespaces()) & _existing_namespaces()


def test_with_a_tcp_grpc_bind_the_real_node_still_reaches_the_control_plane(
    tmp_path: Path, demos: list[DemoProcess]
) -> None:
    """VPN_GRPC_BIND=127.0.0.1:PORT: the node's namespace has a 127.0.0.1 of its own, and the demo's node stayed
    offline forever without a word. The bind is served as asked (an agent on this host dials it) and the node dials
    the unix socket served beside it."""
    grpc_port = _free_port()
    demo = DemoProcess(tmp_path / "var", VPN_GRPC_BIND=f"127.0.0.1:{grpc_port}")
    demos.append(demo)
    assert f"conectado por 127.0.0.1:{grpc_port}" in demo.output()
    wait_for(lambda: demo.server()["online"], timeout=60, interval=1, message="the real agent online")
    assert demo.server()["backend"] == "userspace"
    with socket.create_connection(("127.0.0.1", grpc_port), timeout=5):
        pass  # the TCP bind itself listens too
    demo.stop()
    assert demo.proc.returncode == 0
