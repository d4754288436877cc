"""Tests only: a control-plane process started with this directory on PYTHONPATH and VPN_TEST_CLOCK_OFFSET=<seconds>
reads a wall clock that far off (time.time and time.time_ns), as a host whose clock drifted would. Nothing in
controlplane/ reads the variable: tests/multiprocess/test_skewed_clocks.py starts such a process beside the cluster's
to show that the order of views does not depend on any process's clock (docs/api.md, versions)."""

import os
import time

_offset = float(os.environ.get("VPN_TEST_CLOCK_OFFSET") or 0)
if _offset:
    _time, _time_ns = time.time, time.time_ns
    time.time = lambda: _time() + _offset
    time.time_ns = lambda: _time_ns() + int(_offset * 1_000_000_000)
