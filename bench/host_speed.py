"""How fast this host runs Python right now: the CPU time of a fixed pure-Python loop (lower is faster).

Figures in milliseconds (CPU per request, seconds for a storm) follow the host: the same code took 2.2 times the
CPU on one 2-vCPU host as on another, and one host's speed moved by half within an hour (docs/benchmarks.md,
"Host speed"). `make bench` prints this before every benchmark so that a figure can be read against the speed it
was measured at; kernel_sync.py divides the VM's figure by the host's to state the no-op resync in host time.
Standard library only: it runs inside the kernel test VM too.
"""

from __future__ import annotations

import time


def python_speed() -> float:
    """CPU seconds of a fixed pure-Python loop (about 0.15-0.25 s on the 2-vCPU hosts seen so far)."""
    started = time.process_time()
    total = 0
    for n in range(3_000_000):
        total += n & 7
    return time.process_time() - started
