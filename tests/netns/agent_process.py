"""Run the real node agent (`python -m node_agent`) inside a test namespace, configured by VPN_NODE_* only.

Reusable by any namespace test that needs a node: the agent tunnel test, and the end-to-end test against
the real control plane (point `control_url` at its gRPC listener, e.g. "unix:/path" or "10.x.y.z:port"
reachable from the namespace).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from netns import Namespace

REPO = Path(__file__).resolve().parents[2]


class AgentProcess:
    """One agent process in `ns`; logs go to `workdir/agent.log`, its key to `workdir/state/private.key`."""

    def __init__(
        self,
        ns: Namespace,
        workdir: Path,
        *,
        control_url: str,
        node_id: str,
        credential: str,
        interface: str,
        egress_interface: str = "",
        backbone_interface: str = "",
        backend: str = "userspace",
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.ns = ns
        self.workdir = workdir
        self.log_path = workdir / "agent.log"
        self.state_dir = workdir / "state"
        workdir.mkdir(parents=True, exist_ok=True)
        config = workdir / "agent.toml"
        config.write_text("# everything comes from VPN_NODE_* in tests\n")
        ns.wireguard_interfaces.add(interface)
        backbone = {}
        if backbone_interface:  # nodes that allow rooms: wireguard-go's socket needs a name unique on this host
            ns.wireguard_interfaces.add(backbone_interface)
            backbone = {"VPN_NODE_BACKBONE_INTERFACE": backbone_interface}
        self.env = {
            **os.environ,
            "VPN_NODE_CONFIG": str(config),
            "VPN_NODE_CONTROL_URL": control_url,
            "VPN_NODE_ID": node_id,
            "VPN_NODE_CREDENTIAL": credential,
            "VPN_NODE_BACKEND": backend,
            "VPN_NODE_INTERFACE": interface,
            "VPN_NODE_EGRESS_INTERFACE": egress_interface,
            "VPN_NODE_STATE_DIR": str(self.state_dir),
            "VPN_NODE_STATS_INTERVAL": "0.5",
            "VPN_NODE_BACKOFF_INITIAL": "0.2",
            "VPN_NODE_BACKOFF_MAX": "1",
            "PYTHONPATH": str(REPO),
            **backbone,
            **(extra_env or {}),
        }
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.proc = self.ns.popen(
                [sys.executable, "-m", "node_agent"], env=self.env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
            )

    def kill(self) -> None:
        """SIGKILL: `ip netns exec` execs python, so this pid is the agent itself."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> int:
        """SIGTERM and wait: a clean stop exits 0."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=15)

    def ensure_stopped(self) -> None:
        """For a test's cleanup: SIGTERM if still running, SIGKILL if it does not stop in time."""
        if not self.running:
            return
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def private_key(self) -> str:
        return (self.state_dir / "private.key").read_text().strip()
