"""Every setting the programs read is on docs/settings.md: an operator cannot set what nobody wrote down."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from controlplane.settings import Settings
from node_agent.config import _FIELDS as AGENT_SETTINGS

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "settings.md").read_text()


def _documented() -> set[str]:
    return set(re.findall(r"`(VPN_[A-Z0-9_]+)`", DOC))


def test_every_control_plane_setting_is_documented() -> None:
    source = (REPO / "controlplane" / "settings.py").read_text()
    read = {f"VPN_{name}" for name in re.findall(r'\bget\("([A-Z0-9_]+)"', source)}
    assert len(read) > 30, "the settings' reader changed shape: update this test"
    assert read - _documented() == set()


def test_every_agent_setting_is_documented_with_its_file_key() -> None:
    for key, (variable, _kind) in AGENT_SETTINGS.items():
        assert variable in _documented(), variable
        assert re.search(rf"`{key}`", DOC), key


def test_every_other_variable_the_programs_read_is_documented() -> None:
    """Names read outside the two settings readers (commands, the demo): any VPN_ name in the code that is a
    whole name, not a prefix being built."""
    names: set[str] = set()
    for folder in ("controlplane", "node_agent"):
        for path in (REPO / folder).rglob("*.py"):
            names |= set(re.findall(r'"(VPN_[A-Z0-9_]*[A-Z0-9])"', path.read_text()))
    assert names - _documented() == set()


def test_the_web_client_is_found_whatever_folder_the_control_plane_starts_in(tmp_path: Path) -> None:
    """Started from another folder (systemd without WorkingDirectory, an operator's shell), the control plane said
    "El cliente web no está compilado" although it was built: the default was relative to the working directory."""
    code = "from controlplane.settings import Settings; print(Settings.from_env({}).webui_dist)"
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == REPO / "webui" / "dist"
    assert Settings.from_env({"VPN_WEBUI_DIST": str(tmp_path)}).webui_dist == tmp_path
