"""`make bench`: every benchmark present, one after the other, each printing its figures beside its target."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["agent_sync.py", "push_latency.py"]


def main() -> int:
    failed = 0
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        failed += subprocess.run([sys.executable, str(HERE / name)], cwd=HERE.parent).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
