"""A node installs the `node` dependency group alone (`uv sync --only-group node`, the install steps): the agent must
start from it, and it must not carry the control plane's web, database and mail stack."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AGENT_MODULES = """
import importlib, pkgutil, node_agent
for found in pkgutil.walk_packages(node_agent.__path__, "node_agent."):
    importlib.import_module(found.name)
"""


def _uv() -> str:
    found = shutil.which("uv") or str(Path.home() / ".local" / "bin" / "uv")
    assert Path(found).exists(), "uv is needed to build the node's environment"
    return found


def test_the_agent_starts_from_the_node_group_alone(tmp_path: Path) -> None:
    venv = tmp_path / "node-venv"
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(venv)}
    sync = [_uv(), "sync", "--frozen", "--no-dev", "--only-group", "node", "--quiet"]
    done = subprocess.run(sync, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    python = str(venv / "bin" / "python")
    run = {"cwd": REPO, "capture_output": True, "text": True, "timeout": 120}
    imported = subprocess.run([python, "-c", AGENT_MODULES], **run)  # type: ignore[call-overload]
    assert imported.returncode == 0, imported.stderr
    for control_plane_only in ("litestar", "sqlalchemy", "uvicorn", "argon2", "aiosmtplib", "redis"):
        absent = subprocess.run([python, "-c", f"import {control_plane_only}"], **run)  # type: ignore[call-overload]
        assert absent.returncode != 0, f"{control_plane_only} is installed on a node"
    # The agent itself starts and gets as far as its configuration (a missing file named in the message).
    started = subprocess.run(
        [python, "-m", "node_agent"],
        env={"VPN_NODE_CONFIG": str(tmp_path / "absent.toml"), "PATH": "/usr/bin:/bin"},
        **run,
    )  # type: ignore[call-overload]
    assert started.returncode == 2, started.stderr
    assert "configuration error" in started.stderr and "absent.toml" in started.stderr
