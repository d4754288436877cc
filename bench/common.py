"""What the benchmarks share: a result line run_all.py collects, the fd limit, a control plane to run."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
from redis.asyncio import Redis

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from controlplane.migrate import upgrade  # noqa: E402
from controlplane.services import Services, build_services  # noqa: E402
from controlplane.settings import Settings  # noqa: E402
from tests.multiprocess.cluster import ControlPlaneProcess  # noqa: E402

RESULT_PREFIX = "RESULT|"
DATABASE_PREFIX = "DATABASE|"  # printed by bench_database: run_all.py checks the run used the database it asked for

# A PostgreSQL server (any database on it; the benchmark makes its own beside it). Unset: SQLite in a temporary
# folder. run_all.py sets it for the second run of every benchmark that depends on the database.
DATABASE_ENV = "VPN_BENCH_DATABASE_URL"


# The Redis of the benchmarks that need one (the WebSocket and stats benchmarks): each deployment on it gets a
# prefix of its own.
REDIS_URL = os.environ.get("VPN_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")


async def redis_env() -> dict[str, str] | None:
    """The settings that put a deployment on REDIS_URL under a prefix of its own, or None (said why) when Redis
    does not answer."""
    redis = Redis.from_url(REDIS_URL)
    try:
        await redis.ping()
    except Exception as exc:
        print(f"Redis not reachable at {REDIS_URL}: {exc}")
        return None
    finally:
        await redis.aclose()
    return {"VPN_REDIS_URL": REDIS_URL, "VPN_REDIS_PREFIX": f"vpn-bench-{uuid.uuid4().hex[:8]}:"}


def database_name() -> str:
    """The database this run measures, for the benchmark's own printout ("SQLite" or "PostgreSQL")."""
    return "PostgreSQL" if os.environ.get(DATABASE_ENV, "").startswith("postgresql") else "SQLite"


@asynccontextmanager
async def bench_database(workdir: Path) -> AsyncIterator[str]:
    """The SQLAlchemy URL of an empty database for one deployment, dropped afterwards.

    On PostgreSQL a fresh database per deployment (a benchmark that deploys twice must not find the first
    one's rows); CREATE/DROP DATABASE cannot run in a transaction, so asyncpg talks to the server directly.
    """
    server = os.environ.get(DATABASE_ENV, "")
    print(f"{DATABASE_PREFIX}{database_name()}", flush=True)
    if not server.startswith("postgresql"):
        yield f"sqlite+aiosqlite:///{workdir / 'bench.sqlite3'}"
        return
    admin = server.replace("postgresql+asyncpg://", "postgresql://", 1)
    name = f"vpnbench_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(admin, timeout=10)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    try:
        yield admin.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1) + f"/{name}"
    finally:
        conn = await asyncpg.connect(admin, timeout=10)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


def result(what: str, figure: str, target: str, met: bool | None) -> None:
    """One line per target, figure beside target; run_all.py gathers these into the closing table."""
    verdict = "met" if met else ("NOT met" if met is not None else "n/a")
    print(f"{RESULT_PREFIX}{what}|{figure}|{target}|{verdict}", flush=True)


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far: on a loaded machine, closer to what an idle host would take."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU so far per thread of a process ("main", or its name and id; a thread that ended is not counted): where
    a process's CPU goes between the event loop, the database driver's threads and native ones."""
    by_name: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except FileNotFoundError:
            continue
        name = "main" if task.name == str(pid) else f"{stat[stat.index('(') + 1 : stat.rindex(')')]}/{task.name}"
        fields = stat.rsplit(")", 1)[1].split()
        by_name[name] = by_name.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return by_name


def thread_cpu_report(before: dict[str, float], after: dict[str, float], per: int, unit: str) -> str:
    """The CPU each thread used between two `thread_cpu_seconds`, in ms per `unit` (largest first)."""
    spent = {name: after[name] - before.get(name, 0.0) for name in after}
    parts = [f"{name} {seconds * 1000 / per:.1f}" for name, seconds in sorted(spent.items(), key=lambda i: -i[1])]
    return f"CPU ms per {unit} by thread: " + ", ".join(part for part in parts if not part.endswith(" 0.0"))


def raise_fd_limit(wanted: int) -> int:
    """Soft RLIMIT_NOFILE up to `wanted` (or the hard limit); children started afterwards inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class BenchDeployment:
    """A migrated database (bench_database) and a key file in a temporary folder; services to seed it; one
    process to serve."""

    def __init__(self, workdir: Path, database_url: str, extra_env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.env = {
            "VPN_DATABASE_URL": database_url,
            "VPN_SECRET_KEY_FILE": str(workdir / "secret.key"),
            "VPN_LOG_LEVEL": "WARNING",  # an access line per request would measure the logger
            # A deployed control plane starts from compiled bytecode (docs/deployment.md, "Bytecode"); here the
            # process writes its own into the temporary folder on its first start, so a restart reads it.
            "PYTHONDONTWRITEBYTECODE": "",
            "PYTHONPYCACHEPREFIX": str(workdir / "pycache"),
            # Up to a thousand scripted agents dial from this one loopback address at once (a restart): the caps on
            # unauthenticated streams per address are for strangers (controlplane/nodes/agent_port.py).
            "VPN_GRPC_UNAUTHENTICATED_PER_ADDRESS": "100000",
            "VPN_GRPC_UNAUTHENTICATED_TOTAL": "100000",
            **(extra_env or {}),
        }
        self.process = ControlPlaneProcess("cp", workdir, self.env)

    def services(self) -> Services:
        return build_services(Settings.from_env({**self.env, "VPN_VAR_DIR": str(self.workdir)}))


@asynccontextmanager
async def deployment(extra_env: dict[str, str] | None = None) -> AsyncIterator[BenchDeployment]:
    with tempfile.TemporaryDirectory(prefix="vpnbench") as tmp:
        async with bench_database(Path(tmp)) as url:
            dep = BenchDeployment(Path(tmp), url, extra_env)
            await asyncio.to_thread(upgrade, url)  # Alembic runs its own event loop
            try:
                yield dep
            finally:
                dep.process.stop()
                report_logged_errors(dep.process.log_path)


def report_logged_errors(log_path: Path) -> None:
    """Print what the control plane logged at ERROR or above during the run (its log goes with the temporary
    folder): a figure measured beside server errors should say so."""
    if not log_path.exists():
        return
    errors = []
    for line in log_path.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # uvicorn's or the interpreter's own lines before logging is configured
        if isinstance(entry, dict) and entry.get("level") in ("ERROR", "CRITICAL"):
            errors.append(line)
    if errors:
        print(f"control plane logged {len(errors)} error(s); the first: {errors[0][:2000]}", flush=True)


def start_profiler(pid: int) -> subprocess.Popen[bytes] | None:
    """With BENCH_PROFILE=FILE, py-spy samples the process (the control plane) during the measured part
    (collapsed stacks into FILE; py-spy is not a dependency: `uv tool install py-spy`; it needs ptrace rights)."""
    target = os.environ.get("BENCH_PROFILE")
    if not target:
        return None
    return subprocess.Popen(
        [
            *("py-spy", "record", "--pid", str(pid), "--format", "raw", "--output", target, "--rate", "200"),
            *(os.environ.get("BENCH_PROFILE_ARGS") or "--nonblocking").split(),
        ]
    )


def stop_profiler(profiler: subprocess.Popen[bytes] | None) -> None:
    if profiler is not None:
        profiler.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        profiler.wait(timeout=60)
