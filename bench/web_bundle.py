"""Benchmark: the web client's landing JavaScript (gzip) and whether dashboard routes load lazily.

Target (docs/benchmarks.md): landing page JavaScript under 200 KB gzip; dashboard routes loaded lazily. Builds
webui/dist when missing (make web), then follows Vite's manifest from the entry through its static imports, as
`npm run size` does, and checks that no dashboard or manager module is among them.

Also the landing's transfer on a 1.6 Mbit/s link (a typical Cuban mobile connection): index.html plus the entry's
JavaScript and CSS as sent before assets were precompressed (plain) and now (the build's brotli twins, gzip for
browsers without brotli), computed from bytes: bytes × 8 / 1.6 Mbit/s, round trips and headers left out.
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

from common import REPO, result

TARGET_BYTES = 200 * 1024
LINK_BITS_PER_SECOND = 1_600_000


def main() -> None:
    subprocess.run(["make", "--no-print-directory", "web"], cwd=REPO, check=True, capture_output=True)
    dist = REPO / "webui" / "dist"
    manifest = json.loads((dist / ".vite" / "manifest.json").read_text())
    entry = next(key for key, chunk in manifest.items() if chunk.get("isEntry"))
    static: set[str] = set()
    pending = [entry]
    while pending:
        key = pending.pop()
        if key in static or key not in manifest:
            continue
        static.add(key)
        pending.extend(manifest[key].get("imports", []))
    lazy = {k for chunk in manifest.values() for k in chunk.get("dynamicImports", [])} - static
    total = sum(
        len(gzip.compress((dist / manifest[key]["file"]).read_bytes(), compresslevel=9))
        for key in static
        if manifest[key]["file"].endswith(".js")
    )
    landing = [dist / "index.html"] + [
        dist / name
        for key in static
        for name in [manifest[key]["file"], *manifest[key].get("css", [])]
        if name.endswith((".js", ".css"))
    ]
    sent = {coding: sum(_sent(path, suffix) for path in landing) for coding, suffix in LANDING_CODINGS}
    seconds = {coding: size * 8 / LINK_BITS_PER_SECOND for coding, size in sent.items()}
    print(
        "landing transfer at 1.6 Mbit/s: "
        + ", ".join(f"{coding} {sent[coding] / 1024:.1f} KB = {seconds[coding]:.2f} s" for coding in sent)
    )
    result(
        "landing transfer at 1.6 Mbit/s (before: plain; now: brotli twins)",
        f"{seconds['plain']:.2f} s -> {seconds['brotli']:.2f} s (gzip {seconds['gzip']:.2f} s)",
        "smaller",
        seconds["brotli"] < seconds["plain"],
    )
    eager_dashboard = sorted(k for k in static if "dashboard" in k.lower() or "manager" in k.lower())
    lazy_dashboard = sorted(k for k in lazy if "dashboard" in k.lower() or "manager" in k.lower())
    print(
        f"landing: {len(static)} chunk(s) loaded eagerly, {len(lazy)} lazy; dashboard/manager lazy: "
        f"{len(lazy_dashboard)}, eager: {eager_dashboard or 'none'}"
    )
    result("landing page JavaScript (gzip -9)", f"{total / 1024:.1f} KB", "< 200 KB", total < TARGET_BYTES)
    result(
        "dashboard routes loaded lazily",
        f"{len(lazy_dashboard)} lazy dashboard/manager chunks, {len(eager_dashboard)} eager",
        "all lazy",
        bool(lazy_dashboard) and not eager_dashboard,
    )


LANDING_CODINGS = (("plain", ""), ("gzip", ".gz"), ("brotli", ".br"))


def _sent(path: Path, suffix: str) -> int:
    """Bytes sent for `path` in one coding: its twin when the build wrote one (small files have none)."""
    twin = path.with_name(path.name + suffix)
    return (twin if suffix and twin.is_file() else path).stat().st_size


if __name__ == "__main__":
    main()
