"""`make bench`: every target of DESIGN.md "Performance targets", one benchmark after the other, then one table
with each figure beside its target. Not a gate: a target not met is reported, the run goes on.

The machine matters: run it on an otherwise idle host (figures taken beside other work are "under load").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import RESULT_PREFIX  # noqa: E402

BENCHMARKS = [
    "agent_sync.py",  # needs root: namespace and wireguard-go
    "push_latency.py",
    "peer_list_rps.py",
    "websockets_10k.py",  # needs Redis on loopback
    "restart_sync.py",
    "web_bundle.py",
]


def main() -> int:
    rows: list[list[str]] = []
    failed = []
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, str(HERE / name)],
            cwd=HERE.parent,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(HERE.parent)},
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(RESULT_PREFIX):
                rows.append(line.removeprefix(RESULT_PREFIX).rstrip("\n").split("|"))
            print("  " + line, end="", flush=True)
        if proc.wait() != 0:
            failed.append(name)
        print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)
    print()
    print(f"{'target':<58} {'figure':<52} {'goal':<26} verdict")
    for what, figure, goal, verdict in rows:
        print(f"{what:<58} {figure:<52} {goal:<26} {verdict}")
    if failed:
        print(f"benchmarks that did not finish: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
