"""`make bench`: every performance target (docs/benchmarks.md), one benchmark after the other, then one table
with each figure beside its target. Not a gate: a target not met is reported, the run goes on.

A benchmark whose figures depend on the database runs twice, on SQLite and then on PostgreSQL, and the table shows
the two figures side by side (docs/benchmarks.md, "Two databases"). The PostgreSQL server is VPN_BENCH_PG_URL
(default: the loopback server the tests use); each deployment makes its own database on it and drops it.

The machine matters: run it on an otherwise idle host (figures taken beside other work are "under load"). Before
every benchmark it prints the host's speed (bench/host_speed.py): figures in milliseconds follow it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import DATABASE_ENV, DATABASE_PREFIX, RESULT_PREFIX  # noqa: E402
from host_speed import python_speed  # noqa: E402

PG_SERVER = os.environ.get("VPN_BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


@dataclass(frozen=True)
class Benchmark:
    script: str
    database: bool = False  # True: its figures depend on the database, so it runs on SQLite and on PostgreSQL
    args: tuple[str, ...] = ()
    sqlite_env: tuple[tuple[str, str], ...] = ()  # settings of its SQLite run only (a smaller scale)


BENCHMARKS = [
    # The agent's benchmarks use no database (database=False): one run each.
    Benchmark("agent_sync.py"),  # needs root: namespace and wireguard-go
    Benchmark("agent_sync.py", args=("--peers", "50000", "--rounds", "1")),
    Benchmark("kernel_sync.py"),  # needs root: boots the kernel test layer's VM (several minutes)
    Benchmark("relay.py"),  # needs root: namespaces, wireguard-go and nftables
    Benchmark("push_latency.py", database=True),
    Benchmark("peer_list_rps.py", database=True),
    Benchmark("login_storm.py", database=True),
    Benchmark("login_burst.py", database=True),
    Benchmark("websockets_10k.py", database=True),  # needs Redis on loopback
    # A million peers on 1 000 nodes is the PostgreSQL target; SQLite (one process, the small deployment) restarts
    # the tenth of it that was the target before, so that `make bench` stays under 20 minutes.
    Benchmark("restart_sync.py", database=True, sqlite_env=(("BENCH_PEERS", "100000"), ("BENCH_NODES", "100"))),
    Benchmark("usage_ingest.py", database=True),
    Benchmark("stats_reports.py", database=True),  # needs Redis on loopback
    Benchmark("restart_agents.py", database=True),  # needs root: namespaces and wireguard-go
    Benchmark("web_bundle.py"),
    Benchmark("web_data.py"),  # needs Chromium and a built webui/dist: a customer's data on a Cuban mobile link
]

SQLITE, POSTGRESQL = "SQLite", "PostgreSQL"


@dataclass
class Row:
    what: str
    goal: str
    figures: dict[str, tuple[str, str]]  # database (or "" for a row that has none) -> (figure, verdict)


def run(benchmark: Benchmark, database: str, rows: dict[str, Row], speeds: list[float]) -> bool:
    """One run of one benchmark; its RESULT lines become (or join) rows of the table. False if it failed."""
    speeds.append(python_speed() * 1000)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    env.pop(DATABASE_ENV, None)
    if database == POSTGRESQL:
        env[DATABASE_ENV] = PG_SERVER
    if database == SQLITE:
        env.update(benchmark.sqlite_env)
    name = " ".join((benchmark.script, *benchmark.args)) + (f" ({database})" if database else "")
    print(f"== {name}; host speed {speeds[-1]:.0f} ms", flush=True)
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / benchmark.script), *benchmark.args],
        cwd=HERE.parent,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    used: set[str] = set()
    for line in proc.stdout:
        if line.startswith(DATABASE_PREFIX):
            used.add(line.removeprefix(DATABASE_PREFIX).strip())
        if line.startswith(RESULT_PREFIX):
            what, figure, goal, verdict = line.removeprefix(RESULT_PREFIX).rstrip("\n").split("|")
            what = what.removesuffix(f" ({database})")  # the column says it; the two runs share one row
            if database == POSTGRESQL and used != {POSTGRESQL}:  # it made its own database: not PostgreSQL's figure
                figure, verdict = "not run on PostgreSQL (the benchmark does not deploy through common.py)", "n/a"
            row = rows.setdefault(what, Row(what, goal, {}))
            row.figures[database] = (figure, verdict)
        print("  " + line, end="", flush=True)
    ok = proc.wait() == 0
    print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)
    return ok


def table(rows: dict[str, Row]) -> list[str]:
    """One line per target: the SQLite figure and the PostgreSQL figure side by side (one figure when the row
    does not depend on the database), then the goal and the verdicts in the same order."""
    lines = [f"{'target':<52} {'figure: SQLite':<50} {'figure: PostgreSQL':<50} {'goal':<26} verdict"]
    for row in rows.values():
        if "" in row.figures:
            figure, verdict = row.figures[""]
            lines.append(f"{row.what:<52} {figure:<101} {row.goal:<26} {verdict}")
            continue
        sqlite, postgresql = (row.figures.get(db, ("(did not run)", "-")) for db in (SQLITE, POSTGRESQL))
        verdicts = sqlite[1] if sqlite[1] == postgresql[1] else f"{sqlite[1]} / {postgresql[1]}"
        lines.append(f"{row.what:<52} {sqlite[0]:<50} {postgresql[0]:<50} {row.goal:<26} {verdicts}")
    return lines


def main() -> int:
    rows: dict[str, Row] = {}
    speeds: list[float] = []  # host_speed.python_speed before each benchmark, in ms
    failed = []
    started = time.perf_counter()
    for benchmark in BENCHMARKS:
        for database in (SQLITE, POSTGRESQL) if benchmark.database else ("",):
            if not run(benchmark, database, rows, speeds):
                failed.append(benchmark.script + (f" ({database})" if database else ""))
    print()
    print("\n".join(table(rows)))
    print(
        f"make bench took {(time.perf_counter() - started) / 60:.1f} min; host speed (fixed Python loop, lower is "
        f"faster) {min(speeds):.0f}-{max(speeds):.0f} ms, median {statistics.median(speeds):.0f}"
    )
    if failed:
        print(f"benchmarks that did not finish: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
