"""An idle HTTP connection to the real control plane stays open longer than the proxy in front and HTTP clients keep
theirs (controlplane/http_server.py, HTTP_KEEPALIVE_SECONDS; docs/deployment.md, "Idle connections").

Whoever closes an idle keep-alive connection must be the side that would reuse it: a request sent just as the
other side closes is lost, and a POST is not retried (uvicorn's default of 5 s is httpx's too: most likely how a
benchmark's login storm lost one login)."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

from controlplane.http_server import HTTP_KEEPALIVE_SECONDS
from tests.multiprocess.cluster import REPO
from tests.multiprocess.test_logs import shared, started  # noqa: F401 (shared is the module's database fixture)

# Past uvicorn's default keep-alive (5 s) and httpx's, which is where the lost request came from.
IDLE_SECONDS = 6.0


def _get(connection: socket.socket, path: str) -> bytes:
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = connection.recv(65536)
        if not chunk:
            return answer  # closed by the control plane
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        body += connection.recv(65536)
    return head


def test_an_idle_connection_is_still_served_after_the_clients_own_keep_alive(
    shared: tuple[Path, dict[str, str]],  # noqa: F811
) -> None:
    process = started(shared, "text", "WARNING")
    try:
        with socket.create_connection(("127.0.0.1", process.http_port), timeout=30) as connection:
            assert _get(connection, "/api/client/plans").startswith(b"HTTP/1.1 200")
            time.sleep(IDLE_SECONDS)
            # The same connection, not a new one: the control plane has not closed it under the client.
            assert _get(connection, "/api/client/plans").startswith(b"HTTP/1.1 200")
    finally:
        process.stop()


def test_the_nginx_example_closes_idle_connections_to_the_control_plane_first() -> None:
    upstream = re.search(r"upstream vpn_http \{(.*?)\}", (REPO / "packaging" / "nginx-vpn.conf").read_text(), re.S)
    assert upstream is not None
    timeout = re.search(r"keepalive_timeout (\d+)s;", upstream.group(1))
    assert timeout is not None, "the upstream keeps idle connections for nginx's default (60 s) unless it says"
    assert int(timeout.group(1)) < HTTP_KEEPALIVE_SECONDS
