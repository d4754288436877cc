"""Live figures (`peer_stats`) on a customer's socket cost little mobile data: at most one a minute unless a
handshake is new, and none while the page says its tab is hidden; shown again, the page gets what it missed.

Each check sends a ping after the pushes: the pong comes after anything the pushes sent, so "the next message is
the pong" means nothing was sent.
"""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient, TestClient

from controlplane.app import create_app
from controlplane.realtime.messages import PeerStats, PeerStatsData, PeerStatsLine
from controlplane.services import Services
from tests.api.factories import login, make_user

PHONE, LAPTOP = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"


def _line(peer: str, handshake: int, rx: int) -> dict[str, Any]:
    return {"id": peer, "latest_handshake": handshake, "rx_bytes": rx, "tx_bytes": rx * 10}


def _report(sync_client: TestClient[Any], services: Services, user_id: str, *lines: dict[str, Any]) -> None:
    """A node's report reaching the hub, as agent_sessions.stats pushes it."""
    push = PeerStats(data=PeerStatsData([PeerStatsLine(**line) for line in lines]))
    sync_client.blocking_portal.call(services.hub.push_many, {user_id: push})


def _nothing_sent(socket: Any) -> None:
    socket.send_text('{"type":"ping"}')
    assert socket.receive_json() == {"type": "pong"}


async def test_a_hidden_page_gets_no_figures_and_the_newest_when_shown(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    user = await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    with TestClient(app=create_app(services=services)) as sync_client:
        with sync_client.websocket_connect(f"/ws?token={token}") as socket:
            assert socket.receive_json()["type"] == "auth"
            socket.send_text('{"type":"pause"}')
            _nothing_sent(socket)  # the pause has been read
            _report(sync_client, services, user.id, _line(PHONE, 1_700_000_000, 1_000))
            _report(sync_client, services, user.id, _line(PHONE, 1_700_000_120, 5_000), _line(LAPTOP, 0, 0))
            _report(sync_client, services, user.id, _line(PHONE, 1_700_000_120, 9_000))
            _nothing_sent(socket)
            socket.send_text('{"type":"resume"}')
            # One message, the newest line of each peer: what the page shows is current again.
            assert socket.receive_json() == {
                "type": "peer_stats",
                "data": {"peers": [_line(PHONE, 1_700_000_120, 9_000), _line(LAPTOP, 0, 0)]},
            }
            _nothing_sent(socket)


async def test_figures_come_once_a_minute_but_a_new_handshake_at_once(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    user = await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    with TestClient(app=create_app(services=services)) as sync_client:
        with sync_client.websocket_connect(f"/ws?token={token}") as socket:
            assert socket.receive_json()["type"] == "auth"
            _report(sync_client, services, user.id, _line(PHONE, 1_700_000_000, 1_000))
            assert socket.receive_json()["data"]["peers"] == [_line(PHONE, 1_700_000_000, 1_000)]
            # Five seconds later the node reports more traffic: held, not sent (the next minute brings it).
            _report(sync_client, services, user.id, _line(PHONE, 1_700_000_000, 4_000))
            _nothing_sent(socket)
            # A new handshake is news: sent at once, with what was held for the other peers.
            _report(sync_client, services, user.id, _line(LAPTOP, 1_700_000_060, 10))
            assert socket.receive_json()["data"]["peers"] == [
                _line(PHONE, 1_700_000_000, 4_000),
                _line(LAPTOP, 1_700_000_060, 10),
            ]
            _nothing_sent(socket)
