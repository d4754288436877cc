"""What the lean uvicorn WebSocket protocol (controlplane/realtime/server_socket.py) relies on: its inbox hands
events over in order to its one reader, and its write flag wakes every sender waiting for the buffer to drain."""

from __future__ import annotations

import asyncio

import pytest
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from controlplane.realtime.server_socket import Flag, Inbox, LeanWebSocketProtocol


async def test_the_inbox_hands_events_over_in_order_to_a_reader_that_waits() -> None:
    inbox = Inbox()
    inbox.put_nowait({"type": "websocket.connect"})
    assert not inbox.empty()
    assert await inbox.get() == {"type": "websocket.connect"}
    assert inbox.empty()
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not reader.done()  # nothing yet: it waits
    inbox.put_nowait({"type": "websocket.receive", "text": "a"})
    inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
    assert await reader == {"type": "websocket.receive", "text": "a"}
    assert await inbox.get() == {"type": "websocket.disconnect", "code": 1000}


async def test_a_reader_that_gives_up_leaves_the_events_for_the_next_one() -> None:
    inbox = Inbox()
    reader = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    inbox.put_nowait("later")
    assert await inbox.get() == "later"


async def test_the_write_flag_wakes_every_waiting_sender_when_set() -> None:
    flag = Flag()
    assert flag.is_set()
    await flag.wait()  # set: returns at once
    flag.clear()
    senders = [asyncio.create_task(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(s.done() for s in senders)
    flag.set()
    await asyncio.gather(*senders)
    assert flag.is_set()


def test_the_protocol_is_uvicorns_websockets_sansio_one() -> None:
    """uvicorn's `ws="auto"` picks this implementation today; the subclass must stay a drop-in for it."""
    assert issubclass(LeanWebSocketProtocol, WebSocketsSansIOProtocol)
