"""Benchmark: the web client's landing JavaScript (gzip) and whether dashboard routes load lazily.

Target (DESIGN.md): landing page JavaScript under 200 KB gzip; dashboard routes loaded lazily. Builds webui/dist
when missing (make web), then follows Vite's manifest from the entry through its static imports, as
`npm run size` does, and checks that no dashboard or manager module is among them.
"""

from __future__ import annotations

import gzip
import json
import subprocess

from common import REPO, result

TARGET_BYTES = 200 * 1024


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


if __name__ == "__main__":
    main()
