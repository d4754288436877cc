"""The real control plane (`python -m controlplane serve`) plus one bare handler: the yardstick of
bench/peer_list_rps.py, served by the same process, middleware and event loop as the API."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvicorn
from litestar import get

from controlplane.app import create_app
from controlplane.observability.logs import configure_logging
from controlplane.settings import Settings


@get("/bench/bare", sync_to_thread=False)
def bare() -> dict[str, bool]:
    return {"ok": True}


def main() -> None:
    settings = Settings.from_env()
    configure_logging(settings.log_format, settings.log_level)
    app = create_app(settings)
    app.register(bare)
    host, _, port = settings.http_bind.rpartition(":")
    uvicorn.run(app, host=host, port=int(port), log_config=None, access_log=False, log_level="warning")


if __name__ == "__main__":
    main()
