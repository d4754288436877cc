"""Network-namespace helpers for tests: namespaces, veth pairs, commands inside them, waiting, cleanup.

Everything a helper creates is removed by the same helper's cleanup, also when the test fails. wireguard-go
keeps a namespace alive through its tun device even after `ip netns del`, so cleanup deletes WireGuard links
first (wireguard-go exits when its link goes) and kills what still serves a socket, by pid.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import struct
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

WG_SOCKET_DIR = Path("/var/run/wireguard")
REQUIRED_TOOLS = ("ip", "nft", "wg", "wg-quick", "wireguard-go")


def missing_requirements(tools: Sequence[str] = REQUIRED_TOOLS, tun: bool = True) -> str | None:
    """Why namespace tests cannot run here, or None when they can (`tun`: wireguard-go needs /dev/net/tun)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, WireGuard interfaces, nftables)"
    if tun and not os.path.exists("/dev/net/tun"):
        return "needs /dev/net/tun for wireguard-go"
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        packages = "iproute2 nftables wireguard-tools wireguard-go"
        return f"missing tools: {', '.join(missing)} (apt-get install {packages})"
    return None


def unique_name(prefix: str, length: int = 15) -> str:
    """A name unique across this host and short enough for an interface: wireguard-go sockets are global."""
    return (prefix + uuid.uuid4().hex)[:length]


def wait_for(
    predicate: Callable[[], Any], timeout: float = 10.0, interval: float = 0.05, message: str = "condition"
) -> Any:
    """Poll until `predicate()` is truthy; return its value or raise AssertionError naming `message`."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.1f} s waiting for {message} (last: {last!r})")


def wireguard_go_pid(ifname: str) -> int | None:
    """PID of the wireguard-go serving <ifname>, read from its UAPI socket's peer credentials."""
    path = WG_SOCKET_DIR / f"{ifname}.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
        pid, _, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        return pid
    except OSError:
        return None
    finally:
        sock.close()


class Namespace:
    """A network namespace named uniquely for this run. Use as a context manager or call `delete()`."""

    def __init__(self, prefix: str = "t") -> None:
        self.name = unique_name(f"vpn{prefix}", 24)
        self._procs: list[subprocess.Popen[bytes]] = []
        self.wireguard_interfaces: set[str] = set()  # names to clean up even if the link already vanished
        subprocess.run(["ip", "netns", "add", self.name], check=True)
        self.run(["ip", "link", "set", "lo", "up"])

    def __enter__(self) -> Namespace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.delete()

    def argv(self, cmd: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", self.name, *cmd]

    def run(
        self,
        cmd: Sequence[str],
        check: bool = True,
        env: dict[str, str] | None = None,
        timeout: float = 60,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            self.argv(cmd), capture_output=True, text=True, env=env, timeout=timeout, input=input, check=False
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"in {self.name}: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
            )
        return proc

    def popen(self, cmd: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """Start a long-running process inside; it is killed at cleanup if still running."""
        proc = subprocess.Popen(self.argv(cmd), **kwargs)
        self._procs.append(proc)
        return proc

    def ping(self, address: str, count: int = 1, timeout: float = 2) -> bool:
        proc = self.run(["ping", "-n", "-q", "-c", str(count), "-W", str(int(timeout)), address], check=False)
        return proc.returncode == 0

    def links(self) -> list[str]:
        out = self.run(["ip", "-o", "link", "show"], check=False).stdout
        return [line.split(": ")[1].split("@")[0] for line in out.splitlines() if ": " in line]

    def delete(self) -> None:
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
        names = set(self.wireguard_interfaces) | {
            name for name in self.links() if (WG_SOCKET_DIR / f"{name}.sock").exists()
        }
        pids = {name: wireguard_go_pid(name) for name in names}
        for name in names:
            self.run(["ip", "link", "del", name], check=False)
        for name, pid in pids.items():
            if pid is None:
                continue
            with contextlib.suppress(AssertionError):
                wait_for(lambda pid=pid: not Path(f"/proc/{pid}").exists() or _is_zombie(pid), timeout=3)
            if Path(f"/proc/{pid}").exists() and not _is_zombie(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(FileNotFoundError):
                (WG_SOCKET_DIR / f"{name}.sock").unlink()
        subprocess.run(["ip", "netns", "del", self.name], check=False, capture_output=True)


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (FileNotFoundError, IndexError):
        return True


def veth(a: Namespace, a_name: str, a_address: str, b: Namespace, b_name: str, b_address: str) -> None:
    """A veth pair between two namespaces, addressed ("10.0.0.1/24") and up; gone with either namespace."""
    tmp = unique_name("vt", 15)
    subprocess.run(
        ["ip", "link", "add", tmp, "netns", a.name, "type", "veth", "peer", "name", b_name, "netns", b.name],
        check=True,
    )
    a.run(["ip", "link", "set", tmp, "name", a_name])
    for ns, name, address in ((a, a_name, a_address), (b, b_name, b_address)):
        ns.run(["ip", "addr", "add", address, "dev", name])
        ns.run(["ip", "link", "set", name, "up"])


@contextlib.contextmanager
def namespaces(*prefixes: str) -> Iterator[list[Namespace]]:
    """Several namespaces at once, all deleted on exit."""
    made: list[Namespace] = []
    try:
        for prefix in prefixes:
            made.append(Namespace(prefix))
        yield made
    finally:
        for ns in reversed(made):
            ns.delete()


def wg_quick_up(ns: Namespace, config_text: str, ifname: str, workdir: Path) -> Path:
    """Bring up a wg-quick config inside `ns` with wireguard-go; the DNS line is dropped (no resolvconf)."""
    path = workdir / f"{ifname}.conf"
    text = "\n".join(line for line in config_text.splitlines() if not line.strip().upper().startswith("DNS"))
    path.write_text(text + "\n")
    path.chmod(0o600)
    ns.wireguard_interfaces.add(ifname)
    env = {**os.environ, "WG_QUICK_USERSPACE_IMPLEMENTATION": "wireguard-go", "WG_HIDE_KEYS": "always"}
    ns.run(["wg-quick", "up", str(path)], env=env)
    return path


def wg_quick_down(ns: Namespace, path: Path) -> None:
    env = {**os.environ, "WG_QUICK_USERSPACE_IMPLEMENTATION": "wireguard-go"}
    ns.run(["wg-quick", "down", str(path)], env=env, check=False)
