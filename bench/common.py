"""What the benchmarks share: a result line run_all.py collects, the fd limit, a control plane to run."""

from __future__ import annotations

import asyncio
import os
import resource
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from controlplane.migrate import upgrade  # noqa: E402
from controlplane.services import Services, build_services  # noqa: E402
from controlplane.settings import Settings  # noqa: E402
from tests.multiprocess.cluster import ControlPlaneProcess  # noqa: E402

RESULT_PREFIX = "RESULT|"


def result(what: str, figure: str, target: str, met: bool | None) -> None:
    """One line per target, figure beside target; run_all.py gathers these into the closing table."""
    verdict = "met" if met else ("NOT met" if met is not None else "n/a")
    print(f"{RESULT_PREFIX}{what}|{figure}|{target}|{verdict}", flush=True)


def raise_fd_limit(wanted: int) -> int:
    """Soft RLIMIT_NOFILE up to `wanted` (or the hard limit); children started afterwards inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class BenchDeployment:
    """A migrated SQLite database and key file in a temporary folder; services to seed it; one process to serve."""

    def __init__(self, workdir: Path, extra_env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.env = {
            # SQLite (one host) unless VPN_BENCH_DATABASE_URL names an empty database (e.g. PostgreSQL) to use.
            "VPN_DATABASE_URL": os.environ.get("VPN_BENCH_DATABASE_URL")
            or f"sqlite+aiosqlite:///{workdir / 'bench.sqlite3'}",
            "VPN_SECRET_KEY_FILE": str(workdir / "secret.key"),
            "VPN_LOG_LEVEL": "WARNING",  # an access line per request would measure the logger
            **(extra_env or {}),
        }
        self.process = ControlPlaneProcess("cp", workdir, self.env)

    def services(self) -> Services:
        return build_services(Settings.from_env({**self.env, "VPN_VAR_DIR": str(self.workdir)}))


@asynccontextmanager
async def deployment(extra_env: dict[str, str] | None = None) -> AsyncIterator[BenchDeployment]:
    with tempfile.TemporaryDirectory(prefix="vpnbench") as tmp:
        dep = BenchDeployment(Path(tmp), extra_env)
        await asyncio.to_thread(upgrade, dep.env["VPN_DATABASE_URL"])  # Alembic runs its own event loop
        try:
            yield dep
        finally:
            dep.process.stop()
