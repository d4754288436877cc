"""Host-side tests of the VM runner: what CI relies on (exit code, output, environment, timeout).

These run on the host (no `kernel` marker) and boot the VM themselves; inside the VM they are deselected.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

RUNNER = Path(__file__).with_name("run_in_vm.py")
REPO_ROOT = Path(__file__).resolve().parents[2]


def load_runner() -> ModuleType:
    """Import run_in_vm.py by path: tests/ is not a package."""
    spec = importlib.util.spec_from_file_location("run_in_vm", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run_in_vm = load_runner()


def run_runner(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # As CI calls it: no stdin, output captured (not a TTY).
    return subprocess.run(
        [sys.executable, str(RUNNER), *args],
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
        check=False,
    )


@pytest.mark.usefixtures("vm_available")
def test_guest_exit_code_output_and_environment_reach_the_host():
    long_argument = "x" * 3000  # longer than the 2048-byte kernel command line
    script = 'echo "$1" | wc -c; id -u; pwd; echo "probe=$VPN_PROBE"; echo to-stderr >&2; exit 7'

    result = run_runner("--", "sh", "-c", script, "sh", long_argument, env={"VPN_PROBE": "from-host"})

    assert result.returncode == 7, result.stderr
    assert result.stdout.split() == ["3001", "0", str(REPO_ROOT), "probe=from-host"]
    assert "to-stderr" in result.stderr


@pytest.mark.usefixtures("vm_available")
def test_timeout_stops_the_vm_and_exits_124():
    started = time.monotonic()

    result = run_runner("--timeout", "5", "--", "sleep", "600")

    assert result.returncode == 124
    assert "timed out after 5 s" in result.stderr
    assert time.monotonic() - started < 30


def test_newest_kernel_release_sorts_last():
    names = ["vmlinuz-6.1.0-56-amd64", "vmlinuz-6.10.0-1-amd64", "vmlinuz-6.1.0-9-amd64"]
    ordered = sorted((Path("/boot") / name for name in names), key=run_in_vm.version_key)
    assert [path.name for path in ordered] == [
        "vmlinuz-6.1.0-9-amd64",
        "vmlinuz-6.1.0-56-amd64",
        "vmlinuz-6.10.0-1-amd64",
    ]


def test_a_command_that_never_finishes_is_never_a_success():
    assert run_in_vm.final_exit_code(0, None) == 1
    assert run_in_vm.final_exit_code(255, None) == 255
    assert run_in_vm.final_exit_code(0, 3) == 3
    assert run_in_vm.final_exit_code(124, None) == 124
