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


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far: on a loaded machine, closer to what an idle host would take."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
            # A deployed control plane starts from compiled bytecode (docs/deployment.md, "Bytecode"); here the
            # process writes its own into the temporary folder on its first start, so a restart reads it.
            "PYTHONDONTWRITEBYTECODE": "",
            "PYTHONPYCACHEPREFIX": str(workdir / "pycache"),
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
