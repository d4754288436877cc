"""Who may import whom (docs/architecture.md): the import-linter contracts in pyproject.toml hold, and they do
catch a forbidden import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(*config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *(f"--config={c}" for c in config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_import_boundary_is_kept() -> None:
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_forbidden_import_breaks_the_build(tmp_path: Path) -> None:
    """A contract the code does break (node operations read the servers' models) is reported, and fails."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        """
[tool.importlinter]
root_packages = ["controlplane"]

[[tool.importlinter.contracts]]
name = "deliberately broken"
type = "forbidden"
source_modules = ["controlplane.nodes"]
forbidden_modules = ["controlplane.domain.servers.models"]
"""
    )
    result = lint_imports(config)
    assert result.returncode != 0
    assert "deliberately broken BROKEN" in result.stdout
    assert "controlplane.nodes" in result.stdout and "controlplane.domain.servers.models" in result.stdout
