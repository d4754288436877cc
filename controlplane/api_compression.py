"""Gzip for the customers' JSON answers (`/api/client...`): they travel on metered Cuban mobile data.

The peer list, the largest answer a customer's session reads (about 1.7 kB for two peers, read two or three times
when Peers opens), shrinks to about a third. Everything else is left as it is: the web client's files are sent as
the build's brotli twins already (controlplane/webui.py; compressing them again would double-encode them), and the
staff's answers (`/api/admin`, whole-fleet lists of megabytes) would cost the control plane CPU that its peer-list
benchmarks measure. Answers under 500 bytes stay plain: gzip's own 20 bytes of framing would eat the saving.

No BREACH exposure: a customer's API calls carry their credentials in an Authorization header the page's own code
sets, never in a cookie, so another site cannot make the browser send a request whose compressed answer mixes its
guess with a secret (docs/security.md, "Compressed answers").
"""

from __future__ import annotations

import re

from litestar.config.compression import CompressionConfig
from litestar.middleware.compression import CompressionMiddleware
from litestar.types import Receive, Scope, Send

CUSTOMER_API = re.compile(r"/api/client(/|$)")
# zlib's default: within a few percent of level 9 on small JSON, a fraction of its CPU on large answers.
LEVEL = 6
MINIMUM_SIZE = 500


class CustomerApiCompression(CompressionMiddleware):
    """Litestar's gzip, on the customers' API alone (its `exclude` patterns can only say what to skip, and a
    pattern skipping all other paths trips its "excludes everything" warning)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if CUSTOMER_API.match(scope["path"]):
            await super().__call__(scope, receive, send)
        else:
            await self.app(scope, receive, send)


def customer_api_compression() -> CompressionConfig:
    return CompressionConfig(
        backend="gzip",
        gzip_compress_level=LEVEL,
        minimum_size=MINIMUM_SIZE,
        middleware_class=CustomerApiCompression,
    )
