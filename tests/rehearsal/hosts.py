"""Debian 12 hosts booted with systemd for the rehearsal: mmdebstrap images, systemd-nspawn containers.

Each host is a `systemd-nspawn --boot` container of a Debian 12 image that mmdebstrap made from Debian's packages:
the `important` set (what a fresh minimal install has: systemd, iproute2, ping) plus exactly the packages the
guide's `apt-get install` lines name. An image is kept as a tarball in var/rehearsal/, named after a hash of its
package list, so a rerun only rebuilds it when the guide's list changed; a container boots on an overlay of the
unpacked image, so whatever a rehearsal writes is gone with it.

A container joins a network namespace the test made (`--network-namespace-path`), wired to the others by veth
pairs: no traffic leaves the namespaces. It has no way out to the internet either, so the registries are reached
on the host beforehand: pip, uv and npm inside find what they need in caches the test fills on the host and binds
in (`UV_OFFLINE`, `PIP_NO_INDEX`, `npm_config_offline`), and `apt-get update` is the one command of the guide that
does nothing (the image already holds the guide's packages and Debian's lists from when it was made).

Commands run in the container's namespaces through nsenter (no machined on the host is needed), as root in a login
shell's environment, under `set -euo pipefail` with every command traced to the step's log.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
SUITE = "bookworm"
# Not named by the guide because every Debian 12 install has them (priority `important` or the init system).
BASE_PACKAGES = ("systemd-sysv", "dbus", "iproute2", "iputils-ping", "procps")
REQUIRED_TOOLS = ("mmdebstrap", "systemd-nspawn", "nsenter", "ip", "wg-quick", "wireguard-go")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def missing_requirements() -> str | None:
    """Why the rehearsal cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (systemd-nspawn containers, network namespaces)"
    missing = [tool for tool in REQUIRED_TOOLS if shutil.which(tool) is None]
    if missing:
        return (
            f"missing tools: {', '.join(missing)} "
            "(apt-get install mmdebstrap systemd-container util-linux iproute2 wireguard-tools wireguard-go)"
        )
    if not Path("/dev/net/tun").exists():
        return "needs /dev/net/tun (wireguard-go on the node and the customer)"
    return None


def var_dir() -> Path:
    """var/rehearsal: the last run's logs (last-run/), and the images and caches unless kept elsewhere."""
    path = Path(os.environ.get("VPN_VAR_DIR", PROJECT / "var")) / "rehearsal"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_root() -> Path:
    """Images and download caches: VPN_REHEARSAL_CACHE when set (CI keeps them outside its fresh clone)."""
    path = Path(os.environ["VPN_REHEARSAL_CACHE"]) if os.environ.get("VPN_REHEARSAL_CACHE") else var_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def image(packages: Sequence[str], log: Path) -> Path:
    """The unpacked image for a package list, made (and its tarball kept) on first use."""
    wanted = sorted({*packages, *BASE_PACKAGES})
    key = hashlib.sha256(f"{SUITE} important {' '.join(wanted)}".encode()).hexdigest()[:16]
    tarball = cache_root() / f"debian12-{key}.tar"
    unpacked = cache_root() / f"debian12-{key}"
    if not tarball.exists():
        partial = tarball.with_name(tarball.name + ".partial")
        with log.open("ab") as out:
            subprocess.run(
                [
                    "mmdebstrap", "--variant=important", "--format=tar", "--skip=cleanup/apt/lists",
                    f"--include={','.join(wanted)}", SUITE, str(partial),
                ],
                stdout=out, stderr=subprocess.STDOUT, check=True, timeout=900,
            )  # fmt: skip
        partial.rename(tarball)
        (cache_root() / f"debian12-{key}.packages").write_text("\n".join(wanted) + "\n")
    if not (unpacked / ".complete").exists():
        shutil.rmtree(unpacked, ignore_errors=True)
        unpacked.mkdir()
        subprocess.run(["tar", "-xpf", str(tarball), "-C", str(unpacked), "--numeric-owner"], check=True)
        (unpacked / ".complete").touch()
    return unpacked


@dataclass
class Host:
    """One booted Debian 12 host. `root` is its filesystem as seen from the test (an overlay on the image)."""

    name: str
    image: Path
    netns: str
    workdir: Path
    binds: list[str] = field(default_factory=list)  # nspawn --bind / --bind-ro arguments
    env: dict[str, str] = field(default_factory=dict)
    leader: int = 0
    _proc: subprocess.Popen[bytes] | None = None

    @property
    def root(self) -> Path:
        return self.workdir / "root"

    def mount(self) -> None:
        for part in ("upper", "work", "root"):
            (self.workdir / part).mkdir(parents=True, exist_ok=True)
        options = f"lowerdir={self.image},upperdir={self.workdir / 'upper'},workdir={self.workdir / 'work'}"
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o", options, str(self.root)], check=True)

    def boot(self, timeout: float = 90) -> float:
        """Boot (or boot again after a reboot) and wait for systemd to finish starting; returns the seconds it took."""
        started = time.monotonic()
        if not os.path.ismount(self.root):
            self.mount()
        argv = [
            "systemd-nspawn", "--quiet", "--boot", "--register=no", "--keep-unit", "--console=pipe",
            f"--directory={self.root}", f"--machine={self.name}", f"--hostname={self.name}",
            f"--network-namespace-path=/run/netns/{self.netns}", "--resolv-conf=off", "--timezone=off",
            # nspawn grants CAP_NET_ADMIN with a network of the container's own only for --private-network; a
            # namespace given by path is the container's own too (wireguard-go's TUN device, nftables, routes).
            "--capability=CAP_NET_ADMIN",
            *self.binds,
        ]  # fmt: skip
        log = (self.workdir / "console.log").open("ab")
        # /proc/sys/net writable, as on a host: the node's ip_forward (the rest of /proc/sys stays read-only).
        env = {**os.environ, "SYSTEMD_NSPAWN_API_VFS_WRITABLE": "network"}
        self._proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = started + timeout
        while not self._find_leader():
            if self._proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{self.name} did not boot:\n{self.console()[-3000:]}")
            time.sleep(0.1)
        state = "offline"  # until systemd has made /run/systemd/system
        while state not in ("running", "degraded") and time.monotonic() < deadline:
            time.sleep(0.2)
            state = self.run("systemctl is-system-running --wait", timeout=timeout, check=False).stdout.strip()
        if state not in ("running", "degraded"):
            raise AssertionError(f"{self.name}: systemd says {state!r}\n{self.console()[-3000:]}")
        return time.monotonic() - started

    def _find_leader(self) -> bool:
        """The container's init: nspawn's child whose pid in its own namespace is 1."""
        assert self._proc is not None
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                status = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line)
                if int(status["PPid"]) == self._proc.pid and status["NSpid"].split()[-1] == "1":
                    self.leader = int(entry.name)
                    return True
        return False

    def _still_our_leader(self) -> bool:
        """The pid is still a container's systemd (pid 1 of its own namespace), not a number reused since."""
        try:
            status = Path(f"/proc/{self.leader}/status").read_text()
        except OSError:
            return False
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        return (
            fields.get("Name", "").strip() == "systemd"
            and fields.get("NSpid", "").split()[-1:] == ["1"]
            and (len(fields.get("NSpid", "").split()) > 1)
        )

    def console(self) -> str:
        path = self.workdir / "console.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def run(
        self,
        script: str,
        *,
        input: str | None = None,
        timeout: float = 600,
        check: bool = True,
        log: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """A bash script as root inside the host (`set -euo pipefail`, traced when logged)."""
        env = {"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb", "USER": "root", **self.env}
        flags = "set -euo pipefail" + ("; set -x" if log else "")
        argv = [
            "nsenter", f"--target={self.leader}", "--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup",
            "--root", "--wd", "--", "/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()),
            "/bin/bash", "-c", f"{flags}\ncd /root\n{script}",
        ]  # fmt: skip
        if log is None:
            proc = subprocess.run(
                argv, input=input or "", capture_output=True, text=True, timeout=timeout, check=False, cwd="/"
            )
        else:  # written as it comes, so a step still running can be followed (tail -f)
            with log.open("a") as out:
                out.write(f"===== {self.name} =====\n")
                out.flush()
                errors = log.with_suffix(".stderr")
                with errors.open("w") as err:
                    proc = subprocess.run(
                        argv, input=input or "", stdout=subprocess.PIPE, stderr=err, text=True, timeout=timeout,
                        check=False, cwd="/",
                    )  # fmt: skip
                proc.stderr = errors.read_text(errors="replace")
                out.write(f"{proc.stdout}\n----- stderr (commands traced) -----\n{proc.stderr}\n")
        if check and proc.returncode != 0:
            where = f" (log: {log})" if log else ""
            raise AssertionError(
                f"{self.name}: script failed with status {proc.returncode}{where}\n"
                f"--- last output ---\n{proc.stdout[-2000:]}\n--- last errors ---\n{proc.stderr[-4000:]}"
            )
        return proc

    def write(self, path: str, text: str, mode: int = 0o644) -> None:
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(mode)

    def read(self, path: str) -> str:
        return (self.root / path.lstrip("/")).read_text()

    def wait_stopped(self, timeout: float = 60) -> int:
        """After a reboot or poweroff from inside: nspawn exits (133 for a reboot)."""
        assert self._proc is not None
        code = self._proc.wait(timeout=timeout)
        self._proc = None
        return code

    def shutdown(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)  # nspawn asks the container's systemd to power off
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        self._proc = None
        # A container whose nspawn died without powering it off keeps running under init: end it by its leader.
        if self.leader and self._still_our_leader():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.leader, signal.SIGKILL)
        if os.path.ismount(self.root):
            subprocess.run(["umount", "-l", str(self.root)], check=False)


def shell_quote(words: Sequence[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)
