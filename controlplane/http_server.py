"""The HTTP server a process serves the app with: uvicorn, configured once for `serve` and for the demo
(controlplane/__main__.py, controlplane/demo/run.py), which both import it from here."""

from __future__ import annotations

import uvicorn

from controlplane.settings import Settings

# How long an idle HTTP connection stays open. Longer than the proxy in front keeps its idle connections to us
# (packaging/nginx-vpn.conf: 60 s) and than HTTP clients' usual 5 s: whoever closes an idle connection must be the
# side that would reuse it, or a request sent as the other side closes is lost (a POST is not retried). uvicorn's
# default, 5 s, is httpx's too: most likely how a benchmark's login storm lost one login. docs/deployment.md,
# "Idle connections".
HTTP_KEEPALIVE_SECONDS = 75


def uvicorn_server(settings: Settings) -> uvicorn.Server:
    from controlplane.app import create_app
    from controlplane.realtime.server_socket import LeanWebSocketProtocol

    host, _, port = settings.http_bind.rpartition(":")
    # The address to open, which links and the live socket's origin check follow (docs/deployment.md, client URL).
    print(f"Cliente web: {settings.client_url}", flush=True)
    config = uvicorn.Config(
        create_app(settings),
        host=host.strip("[]") or "127.0.0.1",
        port=int(port),
        log_level=settings.log_level.lower(),
        log_config=None,  # keep the handlers configure_logging set (text or JSON, with request ids)
        access_log=False,  # http_observer writes one access line per request, with its request id
        proxy_headers=False,
        timeout_keep_alive=HTTP_KEEPALIVE_SECONDS,
        ws_max_size=64 * 1024,
        # No per-socket compression (docs/benchmarks.md, "Reconnect storms"): a pair of zlib streams per socket cost
        # about 45 kB of its ~80, for pushes of a few hundred bytes; compressing beside secrets is a risk too.
        ws_per_message_deflate=False,
        # uvicorn's own protocol keeping less per open socket (controlplane/realtime/server_socket.py).
        ws=LeanWebSocketProtocol,
    )
    return uvicorn.Server(config)
