"""Run the real node agent (`python -m node_agent`) inside a test namespace, configured by VPN_NODE_* only.

Reusable by any namespace test that needs a node: the agent tunnel test, and the end-to-end test against
the real control plane (point `control_url` at its gRPC listener, e.g. "unix:/path" or "10.x.y.z:port"
reachable from the namespace).

Every agent started here logs at DEBUG, and after each test (tests/netns/conftest.py) its whole log is scanned:
no credential, no node private key, and no string shaped like a WireGuard key (base64 or the hex of the UAPI)
other than the node's own public keys. Preshared keys and client private keys are key-shaped, so the scan finds
them without the test having to know every key the control plane ever sent.
"""

from __future__ import annotations

import base64
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

from netns import Namespace

from node_agent.keys import public_key_of

REPO = Path(__file__).resolve().parents[2]
# A 32-byte key as wg(8) prints it (base64, 43 characters and one "=") and as the UAPI speaks it (64 hex digits).
KEY_SHAPED = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=(?![A-Za-z0-9+/=])")
HEX_KEY_SHAPED = re.compile(r"(?<![0-9A-Fa-f])[0-9a-f]{64}(?![0-9A-Fa-f])")


class AgentProcess:
    """One agent process in `ns`; logs go to `workdir/agent.log`, its key to `workdir/state/private.key`."""

    # Every agent made during the current test, for the log scan after it (tests/netns/conftest.py).
    made: ClassVar[list[AgentProcess]] = []

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
        self.credential = credential
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
            # Debug lines are scanned for secrets too: a leak that only shows at DEBUG is still a leak.
            "VPN_NODE_LOG_LEVEL": "DEBUG",
            **backbone,
            **(extra_env or {}),
        }
        self.proc: subprocess.Popen[bytes] | None = None
        AgentProcess.made.append(self)

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

    def assert_log_holds_no_secrets(self, *secrets: str, public_keys: tuple[str, ...] = ()) -> None:
        """The whole log (every start of this agent) holds neither the given secrets, nor the agent's credential
        or private key, nor anything key-shaped but the node's public key (and `public_keys`, if a test sends
        peers the agent may name). Failures never print the secret itself."""
        log = self.log()
        if self.proc is None or not log:
            return
        assert " DEBUG " in log, f"{self.log_path}: no DEBUG line, so debug-only output went unscanned"
        known = [self.credential, *secrets]
        allowed = set(public_keys)
        if (self.state_dir / "private.key").exists():
            private_key = self.private_key()
            known += [private_key, base64.b64decode(private_key).hex()]
            allowed.add(public_key_of(private_key))
        for n, secret in enumerate(s for s in known if s):
            assert secret not in log, f"{self.log_path}: secret #{n} (0 = the agent credential) is in the log"
        lines = log.splitlines()
        stray = [i + 1 for i, line in enumerate(lines) if set(KEY_SHAPED.findall(line)) - allowed]
        assert not stray, f"{self.log_path}: key-shaped text that is not the node's public key on lines {stray}"
        hex_lines = [i + 1 for i, line in enumerate(lines) if HEX_KEY_SHAPED.search(line)]
        assert not hex_lines, f"{self.log_path}: a key in hex (UAPI form) on lines {hex_lines}"
