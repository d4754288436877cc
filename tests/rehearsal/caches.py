"""What the hosts would download, fetched on the test's host from the registries and handed in as caches.

The containers have no route out. The guide's `pip install uv`, `uv sync` and `npm ci` run as written inside them,
against caches filled here beforehand (PyPI and npm are reached from this host only, through their own clients):
pip finds the uv wheel in a folder (`PIP_NO_INDEX`, `PIP_FIND_LINKS`), uv its wheels in its cache (`UV_OFFLINE`), npm
its tarballs in its cache (`npm_config_offline`). uv inside is the very version that filled the cache (its cache
layout is versioned). The previous release (releases.py) is installed first and upgraded from, so its lock files
are filled in too. Kept in var/rehearsal/cache across runs; filling an already warm cache takes seconds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from hosts import PROJECT, cache_root
from releases import PREVIOUS_COMMIT, export_previous

UV = shutil.which("uv") or str(Path.home() / ".local/bin/uv")
NODE_GROUP = "node"  # pyproject.toml's agent-only dependency group (docs/deployment.md, "Adding a VPN node")

# Environment the hosts' commands get: where the caches are bound (see `binds`), and no network attempts.
HOST_ENV = {
    "PIP_NO_INDEX": "1",
    "PIP_FIND_LINKS": "/rehearsal/cache/wheels",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "UV_CACHE_DIR": "/rehearsal/cache/uv",
    "UV_OFFLINE": "1",
    "UV_PYTHON_DOWNLOADS": "never",
    "npm_config_cache": "/rehearsal/cache/npm",
    "npm_config_offline": "true",
    "npm_config_update_notifier": "false",
}


def cache_dir() -> Path:
    path = cache_root() / "cache"
    path.mkdir(exist_ok=True)
    return path


def warm(log: Path) -> Path:
    """Fill the caches for the control plane's and the node's installs; returns the folder to bind."""
    cache = cache_dir()
    env = {**os.environ, "UV_CACHE_DIR": str(cache / "uv"), "npm_config_cache": str(cache / "npm")}
    env.pop("VIRTUAL_ENV", None)
    with log.open("ab") as out, tempfile.TemporaryDirectory(dir=cache) as tmp:

        def run(argv: list[str], cwd: Path | None = None, extra: dict[str, str] | None = None) -> None:
            out.write(f"$ {' '.join(argv)}\n".encode())
            out.flush()
            subprocess.run(
                argv, stdout=out, stderr=subprocess.STDOUT, check=True, env={**env, **(extra or {})}, cwd=cwd,
                timeout=900,
            )  # fmt: skip

        version = subprocess.run([UV, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
        wheels = cache / "wheels"
        if not list(wheels.glob(f"uv-{version}-*.whl")):
            # pip through uv: the machine's python3 may have no pip (Debian's is a separate package).
            run([UV, "tool", "run", "--quiet", "--from", "pip", "pip", "download", "--quiet", "--no-deps",
                 "--only-binary=:all:",
                 "--platform", "manylinux2014_x86_64", "--python-version", "3.11", "-d", str(wheels),
                 f"uv=={version}"])  # fmt: skip
        # Debian 12's python3 is what the hosts' uv finds; the host's own may differ, so name it.
        python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else "python3"
        previous = export_previous(Path(tmp) / "previous")
        projects = (PROJECT, previous)
        locks = [p / name for p in projects for name in ("uv.lock", "webui/scripts/npm")]
        uv_stamp = _stamp(cache / "uv.stamp", version, PREVIOUS_COMMIT, *locks)
        # One npm install per distinct lock file (the releases often share theirs).
        web_projects = list({(p / "webui/package-lock.json").read_bytes(): p for p in reversed(projects)}.values())
        npm_stamp = _stamp(cache / "npm.stamp", *(p / "webui/package-lock.json" for p in web_projects))
        if uv_stamp is None and npm_stamp is None:
            return cache
        if uv_stamp:
            # This tree: the control plane's set and the node's; the previous release: the set both its hosts use.
            for project, extra in ((PROJECT, []), (PROJECT, ["--only-group", NODE_GROUP]), (previous, [])):
                run([UV, "sync", "--frozen", "--no-dev", *extra, "--python", python, "--project", str(project)],
                    extra={"UV_PROJECT_ENVIRONMENT": f"{tmp}/venv"})  # fmt: skip
            for project in projects:
                node_wheel = next(
                    line.split('"')[1] for line in (project / "webui/scripts/npm").read_text().splitlines()
                    if line.startswith("NODE_WHEEL=")
                )  # fmt: skip
                run([UV, "tool", "run", "--quiet", "--python", python, "--from", node_wheel, "python", "-c", "pass"])
            uv_stamp()
        if npm_stamp is None:
            return cache
        for number, project in enumerate(web_projects):
            web = Path(tmp) / f"webui-{number}"
            (web / "scripts").mkdir(parents=True)
            for name in ("package.json", "package-lock.json", "scripts/npm"):
                shutil.copy2(project / "webui" / name, web / name)
            run(["scripts/npm", "ci", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"],
                cwd=web, extra={"UV": UV})  # fmt: skip
        npm_stamp()
    return cache


def _stamp(path: Path, *inputs: str | Path) -> Callable[[], None] | None:
    """None when the cache was filled for exactly these inputs (versions, lock files); else what records it once
    filled."""
    digest = hashlib.sha256()
    for item in inputs:
        digest.update(item.read_bytes() if isinstance(item, Path) else item.encode())
    value = digest.hexdigest()
    if path.exists() and path.read_text().strip() == value:
        return None
    return lambda: path.write_text(value + "\n")
