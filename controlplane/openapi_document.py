"""Print the API's OpenAPI document, the one served at /api/schema/openapi.json, without a server.

    python -m controlplane.openapi_document > webui/src/api/openapi.json

The web client's API types are generated from it (`make types`). Building the app opens nothing: no database, Redis
or secret file is touched until its lifespan starts, which this never does; fixed default settings keep the document
the same on every machine whatever `VPN_` variables are set.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from controlplane.settings import Settings


def openapi_document() -> dict[str, Any]:
    from controlplane.app import create_app

    app = create_app(Settings(database_url="sqlite+aiosqlite:///:memory:"))
    document: dict[str, Any] = app.openapi_schema.to_schema()
    return document


def main() -> int:
    json.dump(openapi_document(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
