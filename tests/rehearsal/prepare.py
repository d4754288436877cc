"""The rehearsal's slow preparation on its own: the two Debian images (mmdebstrap) and the registries' downloads.

The fixture calls `prepare()` first; CI also runs this file in the background while the other layers run
(`make rehearsal-prepare`), so `make test-rehearsal` finds everything ready. Nothing is made twice: the images are
keyed on the guide's package lists, the caches stamped with the lock files.

    python tests/rehearsal/prepare.py
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import caches
import guide
from hosts import PROJECT, image, var_dir


def package_lists() -> dict[str, list[str]]:
    """What each host's image holds: the control-plane block's `apt-get install` lines, and those of the node steps
    the manager prints (packaging/node-install.sh, the one source of the guide's node section)."""
    return {
        "control-plane": guide.apt_packages(guide.block("control-plane")),
        "node": guide.apt_packages((PROJECT / "packaging" / "node-install.sh").read_text()),
    }


def prepare(logs: Path) -> tuple[dict[str, Path], Path]:
    """The unpacked images by host, and the cache folder to bind into the hosts."""
    logs.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(3) as pool:  # two mmdebstrap runs and the registries' downloads, side by side
        images = {name: pool.submit(image, packages, logs / f"image-{name}.log")
                  for name, packages in package_lists().items()}  # fmt: skip
        warm = pool.submit(caches.warm, logs / "caches.log")
        return {name: future.result() for name, future in images.items()}, warm.result()


if __name__ == "__main__":
    from hosts import missing_requirements

    reason = missing_requirements()
    if reason:
        print(f"rehearsal preparation skipped: {reason}")
        sys.exit(0)
    made, cache = prepare(var_dir() / "prepare")
    for name, path in made.items():
        print(f"{name}: {path}")
    print(f"caches: {cache}")
