"""The Makefile installs uv with pip when it is missing, also on Debian 12 whose Python refuses `pip install --user`
(PEP 668, "externally managed"), and says what to apt-get install when pip itself is missing. The rule runs for real
under make, with a PATH whose only python3 behaves like Debian's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Debian 12's pip answers a --user install without --break-system-packages with this error and status 1.
EXTERNALLY_MANAGED_PIP = """#!/bin/sh
echo "$*" >> "$HOME/pip-calls"
[ "$1 $2 $3" = "-m pip --version" ] && { echo "pip 23.0.1 (python 3.11)"; exit 0; }
case "$*" in
  *--break-system-packages*) /bin/mkdir -p "$HOME/.local/bin" && printf '#!/bin/sh\\n' > "$HOME/.local/bin/uv"
                             /bin/chmod +x "$HOME/.local/bin/uv"; exit 0 ;;
  *) echo "error: externally-managed-environment" >&2; exit 1 ;;
esac
"""
NO_PIP = """#!/bin/sh
echo "/usr/bin/python3: No module named pip" >&2
exit 1
"""


def _make_uv(tmp_path: Path, python3: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(python3)
    (bin_dir / "python3").chmod(0o755)
    make = shutil.which("make")
    assert make
    # PATH holds nothing but the fake python3: no uv anywhere, so the Makefile aims at ~/.local/bin/uv.
    return subprocess.run(
        [make, "--no-print-directory", "-C", str(REPO), f"{home}/.local/bin/uv"],
        env={"HOME": str(home), "PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_externally_managed_python_still_gets_uv(tmp_path: Path) -> None:
    done = _make_uv(tmp_path, EXTERNALLY_MANAGED_PIP)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "home" / ".local" / "bin" / "uv").exists()
    calls = (tmp_path / "home" / "pip-calls").read_text().splitlines()
    assert calls[-1] == "-m pip install --user --quiet --break-system-packages uv"


def test_a_missing_pip_says_what_to_install(tmp_path: Path) -> None:
    done = _make_uv(tmp_path, NO_PIP)
    assert done.returncode != 0
    assert "apt-get install python3-pip" in done.stderr
    assert not (tmp_path / "home" / ".local" / "bin" / "uv").exists()
