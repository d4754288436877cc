"""Boot Debian's kernel in a virtme-ng VM and run one command inside it, as root, with this host's files.

Usage (from the repository root):

    uv run python tests/kernel/run_in_vm.py -- python -m pytest tests/kernel tests/agent -m kernel

The command's exit code becomes this script's exit code; 124 means the VM timed out. See
docs/testing-kernel.md for what it needs and why it is built this way.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

TIMEOUT_EXIT_CODE = 124
SETUP_ERROR_EXIT_CODE = 2
STATUS_FILE = "status"

# Variables copied from the host into the guest; the guest otherwise starts with a bare environment
# (virtme-ng passes none), so CI's VPN_REQUIRE_ALL_TESTS and uv's PATH/VIRTUAL_ENV would be lost.
PASSED_VARIABLES = ("PATH", "VIRTUAL_ENV", "CI", "PYTEST_ADDOPTS", "PYTHONHASHSEED", "TZ", "LANG")
PASSED_PREFIXES = ("VPN_",)

# Hardware and crypto-acceleration drivers udev would load for qemu's q35 machine (SATA, CD-ROM, watchdog,
# KVM, AES-NI...). Under software emulation loading them takes 10-25 s of the boot; the tests need none of
# them, and WireGuard's own modules (curve25519, chacha20poly1305, udp_tunnel) are not in the list.
UNNEEDED_MODULES = (
    "kvm_amd,kvm_intel,kvm,irqbypass,ccp,crct10dif_pclmul,crc32_pclmul,crc32c_intel,ghash_clmulni_intel,"
    "sha512_ssse3,sha256_ssse3,sha1_ssse3,aesni_intel,sr_mod,cdrom,sg,ahci,libahci,libata,scsi_mod,"
    "iTCO_wdt,iTCO_vendor_support,intel_pmc_bxt,i6300esb,lpc_ich,i2c_i801,i2c_smbus,evdev,psmouse,"
    "serio_raw,pcspkr,button,qemu_fw_cfg"
)

# Directories virtme-ng already overlays with a tmpfs; a working directory under one of them is writable
# in the guest without an extra overlay.
VIRTME_OVERLAID = ("/etc", "/lib", "/usr", "/home", "/opt", "/srv", "/var", "/tmp")


def version_key(kernel: Path) -> list[int | str]:
    """Sort key for 'vmlinuz-6.1.0-56-amd64' that orders numbers numerically (6.1.0-9 < 6.1.0-56)."""
    parts = re.split(r"(\d+)", kernel.name)
    return [int(p) if p.isdigit() else p for p in parts]


def kernel_has_wireguard(kernel: Path) -> bool:
    """True when the modules of this kernel image, as installed on the host, include WireGuard."""
    release = kernel.name.removeprefix("vmlinuz-")
    modules = Path("/lib/modules") / release
    if not (modules / "modules.dep").is_file():
        return False
    # Built in (modules.builtin) or as a module (modules.dep); either way the guest can use it.
    for index in ("modules.dep", "modules.builtin"):
        path = modules / index
        if path.is_file() and "/wireguard.ko" in path.read_text(errors="replace"):
            return True
    return False


def find_kernel() -> Path:
    """The newest /boot/vmlinuz-* whose modules tree has WireGuard (Debian's linux-image-amd64)."""
    candidates = sorted(Path("/boot").glob("vmlinuz-*"), key=version_key, reverse=True)
    for kernel in candidates:
        if kernel_has_wireguard(kernel):
            return kernel
    raise SystemExit(
        "run_in_vm: no /boot/vmlinuz-* with WireGuard in /lib/modules/<release>; "
        "run .ci/install-kernel-vm.sh (installs linux-image-amd64)"
    )


def find_vng() -> Path:
    """The vng launcher of this virtualenv (virtme-ng is a dev dependency), else the one on PATH."""
    beside_python = Path(sys.executable).parent / "vng"
    if beside_python.exists():
        return beside_python
    on_path = shutil.which("vng")
    if on_path:
        return Path(on_path)
    raise SystemExit("run_in_vm: vng not found; run `uv sync` (virtme-ng is in the dev dependency group)")


def check_host_tools() -> None:
    """Fail early, with the fix, when a host tool virtme-ng needs is missing."""
    needed = {"qemu-system-x86_64": "qemu-system-x86", "busybox": "busybox-static", "modprobe": "kmod"}
    missing = [package for tool, package in needed.items() if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"run_in_vm: missing Debian packages {' '.join(missing)}; run .ci/install-kernel-vm.sh")


def guest_environment() -> dict[str, str]:
    """The host variables the guest command should see, plus markers that say it runs in the VM."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name in PASSED_VARIABLES or name.startswith(PASSED_PREFIXES)
    }
    # Guest stdout is a virtio serial port, not a TTY: unbuffered Python keeps the output streaming.
    env["PYTHONUNBUFFERED"] = "1"
    env["VPN_KERNEL_VM"] = "1"
    return env


def write_guest_script(directory: Path, workdir: Path, command: Sequence[str]) -> Path:
    """Write the script the guest runs; it records the command's exit status in directory/status.

    The command travels in a file rather than on the kernel command line, which virtme-ng would otherwise
    use and which the kernel cuts at 2048 bytes. The directory must be one the guest sees and may write
    (vng_command shares it read-write), so the host learns the status even if vng's own report is lost.
    """
    status = shlex.quote(str(directory / STATUS_FILE))
    lines = [
        "#!/bin/sh",
        """echo "run_in_vm: guest up after $(cut -d' ' -f1 /proc/uptime) s" >&2""",
        f"cd {shlex.quote(str(workdir))} || {{ echo 125 > {status}; exit 125; }}",
    ]
    lines += [f"export {name}={shlex.quote(value)}" for name, value in sorted(guest_environment().items())]
    lines += [shlex.join(command), "code=$?", f'echo "$code" > {status}', 'exit "$code"']
    script = directory / "guest.sh"
    script.write_text("\n".join(lines) + "\n")
    return script


def recorded_status(directory: Path) -> int | None:
    """The exit status the guest script wrote, or None when the command never finished."""
    try:
        return int((directory / STATUS_FILE).read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def final_exit_code(vng_code: int, recorded: int | None) -> int:
    """Trust the status the guest recorded; never report success for a command that did not finish."""
    if vng_code == TIMEOUT_EXIT_CODE and recorded is None:
        return TIMEOUT_EXIT_CODE
    if recorded is None:
        print(
            "run_in_vm: the command did not finish in the guest (boot failure or kernel crash)",
            file=sys.stderr,
            flush=True,
        )
        return vng_code or 1
    return recorded


def vng_command(vng: Path, kernel: Path, workdir: Path, script: Path, args: argparse.Namespace) -> list[str]:
    """The vng invocation: software emulation, root in the guest, the host's root file system shared."""
    command = [
        str(vng),
        "--run",
        str(kernel),
        # KVM is either absent or unusable on these machines (qemu aborts on an MSR write), and
        # software emulation boots in about 20 s, which is fine for one VM per test run.
        "--disable-kvm",
        "--user",
        "root",
        "--memory",
        args.memory,
        "--cpus",
        str(args.cpus),
        "--cwd",
        str(workdir),
        "--append",
        f"module_blacklist={UNNEEDED_MODULES}",
    ]
    if not str(workdir).startswith(tuple(d + "/" for d in VIRTME_OVERLAID)):
        # Writable in the guest (pytest cache, __pycache__, files tests write) but never written back.
        command += ["--overlay-rwdir", str(workdir)]
    # The script's directory, writable so the guest can record the exit status there.
    command += ["--rwdir", str(script.parent)]
    for directory in args.rwdir:
        command += ["--rwdir", directory]
    if args.verbose:
        command.append("--verbose")
    command += ["--", f"sh {shlex.quote(str(script))}"]
    return command


def precompile_virtualenv() -> None:
    """Compile this virtualenv's modules to bytecode on the host, where it is fast.

    In the guest the virtualenv is read-only (or a throwaway overlay), so without this every run compiles
    pytest, pyroute2, hypothesis... again under software emulation. Up-to-date files are skipped, so after
    the first run this takes about a second.
    """
    if sys.prefix == sys.base_prefix:
        return  # not a virtualenv: leave system directories alone
    site_packages = sysconfig.get_paths()["purelib"]
    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
        compileall.compile_dir(site_packages, quiet=2, workers=0)


def relay(source: BinaryIO, target: BinaryIO) -> None:
    """Copy a pipe to our own stream as bytes arrive, so output streams live."""
    fd = source.fileno()
    while chunk := os.read(fd, 65536):
        target.write(chunk)
        target.flush()


def stop_process_group(process: subprocess.Popen[bytes]) -> None:
    """Stop vng, virtme-run and qemu together (they share the session we started)."""
    for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        if process.poll() is not None:
            return
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue


def run(command: list[str], timeout: float) -> int:
    """Run vng with stdin on /dev/null and pipes for its output; return the guest's exit code."""
    # Pipes, not our own stdout/stderr: qemu opens /proc/self/fd/1 and /proc/self/fd/2 as chardev files
    # with O_TRUNC, which on a redirected log file wipes what was written before and lets the guest's
    # stdout and stderr overwrite each other. stdin must be an open file: virtme-run crashes on a
    # closed one, and /dev/null keeps it from waiting for a terminal.
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stderr is not None
    relays = [
        threading.Thread(target=relay, args=(process.stdout, sys.stdout.buffer), daemon=True),
        threading.Thread(target=relay, args=(process.stderr, sys.stderr.buffer), daemon=True),
    ]
    for thread in relays:
        thread.start()

    def stop_on_signal(signum: int, _frame: object) -> None:
        stop_process_group(process)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop_on_signal)
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_process_group(process)
        print(f"\nrun_in_vm: timed out after {timeout:.0f} s; VM stopped", file=sys.stderr, flush=True)
        code = TIMEOUT_EXIT_CODE
    except KeyboardInterrupt:
        stop_process_group(process)
        code = 128 + signal.SIGINT
    for thread in relays:
        thread.join(timeout=5)
    return code


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Run a command as root inside a virtme-ng VM booting Debian's kernel (with WireGuard).",
        usage="%(prog)s [options] -- COMMAND [ARG...]",
    )
    parser.add_argument("--kernel", type=Path, help="kernel image (default: newest /boot/vmlinuz-* with WireGuard)")
    parser.add_argument("--memory", default="1G", help="guest memory (default: 1G)")
    parser.add_argument("--cpus", type=int, default=2, help="guest CPUs (default: 2)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before the VM is stopped (default: 900)")
    parser.add_argument(
        "--rwdir", action="append", default=[], help="host directory the guest may write to (repeatable)"
    )
    parser.add_argument("--verbose", action="store_true", help="show the guest kernel's console")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="command to run in the guest, after --")
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("no command given; put it after --")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        check_host_tools()
        kernel = args.kernel or find_kernel()
        vng = find_vng()
    except SystemExit as error:
        print(error, file=sys.stderr)
        return SETUP_ERROR_EXIT_CODE
    # vng starts virtme-run by name, so the launcher's directory must be on PATH.
    os.environ["PATH"] = f"{vng.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    workdir = Path.cwd()
    started = time.monotonic()
    precompile_virtualenv()
    print(f"run_in_vm: bytecode ready in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="run_in_vm-", dir="/tmp") as tmp:
        script = write_guest_script(Path(tmp), workdir, args.command)
        command = vng_command(vng, kernel, workdir, script, args)
        print(f"run_in_vm: booting {kernel.name} (software emulation)", file=sys.stderr, flush=True)
        started = time.monotonic()
        code = final_exit_code(run(command, args.timeout), recorded_status(Path(tmp)))
        elapsed = time.monotonic() - started
    print(f"run_in_vm: exit code {code} after {elapsed:.1f} s", file=sys.stderr, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
