"""The demo's real node: the node agent and a demo client, each in a network namespace the demo makes and removes.

When the demo runs as root on a machine with wireguard-go, wg-quick and ip, the demo server is a real one: the node
agent (`python -m node_agent`, userspace backend) runs in namespace `vpn-demo-<pid>-<id>-node` and dials the control
plane's unix socket (the filesystem is shared across namespaces). A second namespace, `...-client`, is joined to it
by a veth pair on 10.213.0.0/30 (both ends in the demo's own namespaces, so nothing touches the machine's network);
there the demo customer's downloaded configuration comes up with wg-quick and a ping every couple of seconds keeps a
real handshake and real byte counters in the customer's page. Everything is removed when the demo stops, and
namespaces of demos that died without cleaning up are removed at the next start (docs/deployment.md, "The demo").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import httpx

PREFIX = "vpn-demo-"
NODE_ADDRESS = "10.213.0.1"  # the demo server's endpoint, on the node namespace's end of the veth pair
CLIENT_ADDRESS = "10.213.0.2"
TOOLS = ("ip", "wg", "wg-quick", "wireguard-go", "ping")
WG_SOCKET_DIR = Path("/var/run/wireguard")
REPO = Path(__file__).resolve().parents[2]


def unavailable_reason(env: Mapping[str, str]) -> str | None:
    """Why the demo runs the simulated node instead (None: the real agent can run)."""
    if env.get("VPN_DEMO_NODE", "").strip() == "simulated":
        return "VPN_DEMO_NODE=simulated"
    if os.geteuid() != 0:
        return "hace falta root para los espacios de red"
    if not os.path.exists("/dev/net/tun"):
        return "falta /dev/net/tun para wireguard-go"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"faltan {', '.join(missing)} (apt-get install wireguard-go wireguard-tools iproute2 iputils-ping)"
    return None


def _run(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    # Fixed argv: ip and the demo's own namespace and interface names.
    return subprocess.run(argv, capture_output=True, text=True, check=check, timeout=30)  # noqa: S603


# vpn-demo-<the demo's pid>-<its id>-node|client; other names are none of the demo's business.
NAMESPACE = re.compile(rf"^{PREFIX}(\d+)-([0-9a-f]+)-(?:node|client)$")


def _demo_namespaces() -> list[re.Match[str]]:
    out = _run("ip", "netns", "list", check=False).stdout
    names = (line.split()[0] for line in out.splitlines() if line.strip())
    return [match for name in names if (match := NAMESPACE.match(name))]


def _interfaces(short_id: str) -> dict[str, str]:
    # wireguard-go's sockets live in one folder for the whole machine, so its interface names carry the demo's id.
    return {role: f"vd{short_id}{role[0]}" for role in ("node", "backbone", "client")}


def _remove_namespace(name: str, short_id: str) -> None:
    """Kill what runs inside (wireguard-go: its TUN links go with it), delete any link left, delete the namespace.

    The processes go first: deleting a TUN link while wireguard-go still holds it waits until the kernel lets go of
    the device, which took over 20 s on a loaded machine (and a second Ctrl+C then left the namespaces behind)."""
    pids = [int(pid) for pid in _run("ip", "netns", "pids", name, check=False).stdout.split() if pid.isdigit()]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)  # SIGKILL is asynchronous: the links go once the processes are really gone
    for interface in _interfaces(short_id).values():
        _run("ip", "-n", name, "link", "del", interface, check=False)
    _run("ip", "netns", "del", name, check=False)
    for interface in _interfaces(short_id).values():
        with contextlib.suppress(FileNotFoundError):
            (WG_SOCKET_DIR / f"{interface}.sock").unlink()


def remove_stale_namespaces() -> list[str]:
    """Namespaces left by demos whose process is gone (killed, crashed before cleaning up); returns their names."""
    removed = []
    for match in _demo_namespaces():
        name, pid, short_id = match.group(0), match.group(1), match.group(2)
        if Path(f"/proc/{pid}").exists():
            continue  # a demo still running (another checkout's)
        _remove_namespace(name, short_id)
        removed.append(name)
    return removed


class DemoNetwork:
    """The two namespaces, the veth pair between them, the agent and the client's traffic; `close()` removes all."""

    def __init__(self, var_dir: Path) -> None:
        self.var_dir = var_dir
        self.short_id = uuid.uuid4().hex[:6]
        base = f"{PREFIX}{os.getpid()}-{self.short_id}"
        self.node_ns, self.client_ns = f"{base}-node", f"{base}-client"
        self.interfaces = _interfaces(self.short_id)
        self.agent: subprocess.Popen[bytes] | None = None

    @property
    def client_config(self) -> Path:
        return self.var_dir / "demo-node" / f"{self.interfaces['client']}.conf"

    def create(self) -> None:
        for ns in (self.node_ns, self.client_ns):
            _run("ip", "netns", "add", ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
        _run("ip", "link", "add", "vd" + self.short_id + "v", "netns", self.node_ns, "type", "veth",
             "peer", "name", "veth0", "netns", self.client_ns)  # fmt: skip
        _run("ip", "-n", self.node_ns, "link", "set", "vd" + self.short_id + "v", "name", "veth0")
        for ns, address in ((self.node_ns, NODE_ADDRESS), (self.client_ns, CLIENT_ADDRESS)):
            _run("ip", "-n", ns, "addr", "add", f"{address}/30", "dev", "veth0")
            _run("ip", "-n", ns, "link", "set", "veth0", "up")

    def start_agent(self, control_url: str, node_id: str, credential: str) -> Path:
        """The real agent in the node namespace; its key is kept in the var folder so configurations survive a
        restart of the demo. Returns its log file."""
        state = self.var_dir / "demo-node"
        state.mkdir(parents=True, exist_ok=True)
        config = state / "agent.toml"
        config.write_text("# the demo configures its agent with VPN_NODE_* (controlplane/demo/real_node.py)\n")
        env = {
            **os.environ,
            "VPN_NODE_CONFIG": str(config),
            "VPN_NODE_CONTROL_URL": control_url,
            "VPN_NODE_ID": node_id,
            "VPN_NODE_CREDENTIAL": credential,
            "VPN_NODE_BACKEND": "userspace",
            "VPN_NODE_INTERFACE": self.interfaces["node"],
            "VPN_NODE_BACKBONE_INTERFACE": self.interfaces["backbone"],
            "VPN_NODE_STATE_DIR": str(state / "state"),
            "VPN_NODE_STATS_INTERVAL": "5",
            "VPN_NODE_BACKOFF_INITIAL": "0.5",
            "VPN_NODE_BACKOFF_MAX": "2",
            "PYTHONPATH": str(REPO),
        }
        log = state / "agent.log"
        with log.open("ab") as out:
            # Its own session: Ctrl+C in the terminal reaches the demo, which then removes the agent with the rest.
            self.agent = subprocess.Popen(  # noqa: S603 - fixed argv
                ["ip", "netns", "exec", self.node_ns, sys.executable, "-m", "node_agent"],  # noqa: S607
                env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
        return log

    async def client_traffic(self, http_url: str, username: str, password: str, node_tunnel_address: str) -> None:
        """As the demo customer: download the peer's configuration, bring it up in the client namespace, ping the
        node through the tunnel every two seconds. Retries until the node has reported its key (the
        configuration names it) and the peer is applied."""
        config = await self._download_config(http_url, username, password)
        path = self.client_config
        # No DNS line: wg-quick would hand it to resolvconf, which would change the machine's resolver.
        text = "\n".join(line for line in config.splitlines() if not line.strip().upper().startswith("DNS"))
        path.touch(mode=0o600)
        path.write_text(text + "\n")
        env = {**os.environ, "WG_QUICK_USERSPACE_IMPLEMENTATION": "wireguard-go", "WG_HIDE_KEYS": "always"}
        up = await asyncio.create_subprocess_exec(
            "ip", "netns", "exec", self.client_ns, "wg-quick", "up", str(path), env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, error = await up.communicate()
        if up.returncode != 0:
            print(f"La demostración no pudo levantar el cliente de prueba: {error.decode(errors='replace')}",
                  file=sys.stderr, flush=True)  # fmt: skip
            return
        ping = await asyncio.create_subprocess_exec(
            "ip", "netns", "exec", self.client_ns, "ping", "-n", "-q", "-i", "2", "-s", "1200", node_tunnel_address,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        await ping.wait()

    async def _download_config(self, http_url: str, username: str, password: str) -> str:
        # The control plane's access log already shows these requests; httpx would log each poll a second time.
        logging.getLogger("httpx").setLevel(logging.WARNING)
        async with httpx.AsyncClient(base_url=http_url, timeout=10) as http:
            while True:
                with contextlib.suppress(httpx.HTTPError, KeyError, IndexError, TypeError, ValueError):
                    login = await http.post(
                        "/api/client/login", json={"username": username, "password": password, "remember": False}
                    )
                    headers = {"Authorization": f"Bearer {login.json()['access']}"}
                    while True:
                        peers = (await http.get("/api/client/accounts/peers", headers=headers)).json()
                        ready = [p for p in peers if p["active"] and not p["processing"]]
                        if ready:
                            answer = await http.get(f"/api/client/accounts/peers/{ready[0]['id']}", headers=headers)
                            if answer.status_code == 200 and "Endpoint" in answer.text:
                                return answer.text
                        await asyncio.sleep(1)
                await asyncio.sleep(1)

    def close(self) -> None:
        if self.agent is not None and self.agent.poll() is None:
            self.agent.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.agent.wait(timeout=5)
        for ns in (self.client_ns, self.node_ns):
            _remove_namespace(ns, self.short_id)  # what was never made is skipped (its commands fail unchecked)
        # The client's configuration holds the demo peer's private key; it is downloaded again on the next start.
        self.client_config.unlink(missing_ok=True)
