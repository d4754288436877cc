"""Benchmark: what the web client costs a customer on Cuban mobile data (docs/benchmarks.md, "Session 15").

Targets (issue 30, item 9), Chromium throttled to 1.6 Mbit/s and 300 ms per request:
- logging in and opening Peers with an empty cache: at most 150 KB in at most 25 requests, each screen the
  customer waits on (the login form, Home after 'Iniciar sesión', Peers after its link) shown within 2.5 s;
- a return visit (same browser, session remembered) to Peers: at most 15 KB;
- the Peers page left open while the customer's phone is connected (its node reports it every 5 s): at most 30 KB
  an hour, and nothing while the tab is hidden.

Starts the browser tests' control plane (tests/browser/harness.py: the real control plane serving webui/dist,
seeded, scripted agents), then bench/web_data.mjs drives Chromium. Measures the built webui/dist (`make web`).
BENCH_IDLE_SECONDS (default 180) is the open-page window the hourly figure is scaled from.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from common import REPO, result

KB = 1000  # the targets are in kB as a data plan counts them


def main() -> None:
    if not (REPO / "webui" / "dist" / "index.html").is_file():
        raise SystemExit("webui/dist is not built: run `make web` first")
    harness = subprocess.Popen(
        [sys.executable, "-m", "tests.browser.harness"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert harness.stdout is not None
        described = harness.stdout.readline().decode()
        if not described:
            raise SystemExit("the browser harness did not start")
        run = subprocess.run(
            ["node", str(REPO / "bench" / "web_data.mjs"), described.strip()],
            cwd=REPO,
            check=True,
            capture_output=True,
            text=True,
        )
    finally:
        assert harness.stdin is not None
        harness.stdin.close()
        harness.wait(timeout=60)
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    report(figures)


def report(figures: dict[str, Any]) -> None:
    cold, back, idle, hidden, shown = (figures[k] for k in ("cold", "return_visit", "idle", "hidden", "shown_again"))
    print(f"cold: {cold['received']} B received, {cold['bytes'] - cold['received']} B sent")
    print(f"return visit: {back['received']} B received, {back['bytes'] - back['received']} B sent")
    print("cold requests:", " ".join(cold["urls"]))
    print("cold, received by resource (largest first):")
    for path, size in sorted(cold["by_url"].items(), key=lambda item: -item[1]):
        print(f"  {size:>8} B  {path}")
    print("return visit requests:", " ".join(back["urls"]))
    print(f"open page, {idle['seconds']} s: {idle['frames']} frames, requests: {' '.join(idle['urls']) or 'none'}")
    print(f"shown again: {shown['bytes']} B in {shown['requests']} requests, {shown['frames']} frames")
    result(
        "login + Peers, cold (1.6 Mbit/s, 300 ms)",
        f"{cold['bytes'] / KB:.1f} KB in {cold['requests']} requests",
        "<= 150 KB, <= 25 requests",
        cold["bytes"] <= 150 * KB and cold["requests"] <= 25,
    )
    waits = cold["waits_ms"]
    slowest = max(waits.values())
    result(
        "login + Peers, cold: slowest screen shown",
        f"{slowest / 1000:.2f} s (login {waits['login'] / 1000:.2f}, home {waits['home'] / 1000:.2f}, "
        f"peers {waits['peers'] / 1000:.2f})",
        "<= 2.5 s each",
        slowest <= 2500,
    )
    result(
        "return visit to Peers",
        f"{back['bytes'] / KB:.1f} KB in {back['requests']} requests, {back['waits_ms']['peers'] / 1000:.2f} s",
        "<= 15 KB",
        back["bytes"] <= 15 * KB,
    )
    result(
        "open Peers page, phone connected, per hour",
        f"{idle['per_hour'] / KB:.1f} KB",
        "<= 30 KB",
        idle["per_hour"] <= 30 * KB,
    )
    result(
        "open Peers page, tab hidden",
        f"{hidden['bytes']} B in {hidden['seconds']} s ({hidden['frames']} frames)",
        "0 B",
        hidden["bytes"] == 0,
    )


if __name__ == "__main__":
    main()
