"""Fan-out of events between control-plane processes: in-process by default, through Redis pub/sub when set."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from redis.asyncio import Redis

from controlplane.realtime.topics import P, Topic

log = logging.getLogger(__name__)

Handler = Callable[[Any], Awaitable[None]]
ACK_TOPIC = "ack"
ACK_FIELD = "_ack"  # set on events published by publish_everywhere: each process answers on ACK_TOPIC
ACK_TIMEOUT = 2.0
_ACK_MARK = f'"{ACK_FIELD}"'.encode()


class _Acked(msgspec.Struct, rename={"id": ACK_FIELD}):
    id: str | None = None


def _ack_id(data: bytes) -> str | None:
    """The acknowledgement an event asks for, if any (most ask none: no second decoding for them)."""
    if _ACK_MARK not in data:
        return None
    try:
        return msgspec.json.decode(data, type=_Acked).id
    except msgspec.DecodeError:
        return None


class _Acks:
    """Processes that have handled one event published by publish_everywhere, against how many received it."""

    def __init__(self) -> None:
        self.received = 0
        self.expected: int | None = None
        self.done = asyncio.Event()

    def check(self) -> None:
        if self.expected is not None and self.received >= self.expected:
            self.done.set()


class EventBus:
    """Typed topics (realtime/topics.py) carried in this process, or between processes through Redis, where each
    event is its payload's JSON object on the channel named after the topic; "ack" carries the answers to
    publish_everywhere. In this process a handler receives the very struct that was published."""

    def __init__(self, redis: Redis | None = None, prefix: str = "vpn:") -> None:
        self._redis = redis
        self._channel_prefix = f"{prefix}events:"
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self._topics: dict[str, Topic[Any]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._acks: dict[str, _Acks] = {}
        self._on_gap: list[Callable[[], None]] = []

    @property
    def reliable(self) -> bool:
        """True while every event published anywhere reaches this process (in-process, or subscribed to Redis)."""
        return self._redis is None or self._ready.is_set()

    def on_gap(self, callback: Callable[[], None]) -> None:
        """Called when this process may have missed events (the Redis subscription was lost or came back)."""
        self._on_gap.append(callback)

    def _gap(self) -> None:
        for callback in self._on_gap:
            callback()

    def subscribe(self, topic: Topic[P], handler: Callable[[P], Awaitable[None]]) -> None:
        self._topics[topic.name] = topic
        self._handlers[topic.name].append(handler)

    async def publish(self, topic: Topic[P], payload: P) -> None:
        if self._redis is None:
            await self._dispatch(topic.name, payload)
            return
        try:
            await self._redis.publish(self._channel_prefix + topic.name, msgspec.json.encode(payload))
        except Exception as exc:
            log.warning("redis publish failed (%s); delivering in this process only", exc)
            await self._dispatch(topic.name, payload)
            return
        if not self._ready.is_set():
            # Our own subscription is down (Redis just came back, the reader is re-subscribing): Redis carried
            # the event to the other processes but not to this one, so deliver it here directly.
            await self._dispatch(topic.name, payload)

    async def publish_everywhere(self, topic: Topic[P], payload: P) -> None:
        """Publish, and return once every process has handled the event (or `timeout` passed): for changes that
        must have taken effect on all processes before the caller answers (a logout, a blocked account). A process
        that does not answer within ACK_TIMEOUT seconds is not waited for longer."""
        if self._redis is None:
            await self._dispatch(topic.name, payload)
            return
        ack_id = uuid.uuid4().hex
        acks = self._acks[ack_id] = _Acks()
        try:
            try:
                receivers = await self._redis.publish(
                    self._channel_prefix + topic.name,
                    msgspec.json.encode({**msgspec.to_builtins(payload), ACK_FIELD: ack_id}),
                )
            except Exception as exc:
                log.warning("redis publish failed (%s); delivering in this process only", exc)
                await self._dispatch(topic.name, payload)
                return
            if not self._ready.is_set():
                await self._dispatch(topic.name, payload)  # as in publish(): Redis cannot bring it back to us
            acks.expected = int(receivers)
            acks.check()
            try:
                await asyncio.wait_for(acks.done.wait(), ACK_TIMEOUT)
            except TimeoutError:
                log.warning("%s event: %d of %d processes confirmed in time", topic.name, acks.received, receivers)
        finally:
            del self._acks[ack_id]

    async def _acknowledge(self, ack_id: str) -> None:
        assert self._redis is not None
        try:
            await self._redis.publish(self._channel_prefix + ACK_TOPIC, msgspec.json.encode({"id": ack_id}))
        except Exception as exc:
            log.warning("redis publish of an acknowledgement failed (%s)", exc)

    def _acknowledged(self, event: dict[str, Any]) -> None:
        acks = self._acks.get(event.get("id", ""))
        if acks is not None:
            acks.received += 1
            acks.check()

    async def _dispatch(self, topic: str, payload: Any) -> None:
        for handler in self._handlers.get(topic, ()):
            try:
                await handler(payload)
            except Exception:
                log.exception("event handler for %s failed", topic)

    async def start(self) -> None:
        if self._redis is not None and self._reader is None:
            self._reader = asyncio.create_task(self._read_forever(), name="event-bus-reader")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), timeout=5)

    async def stop(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None

    async def _read_forever(self) -> None:
        assert self._redis is not None
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.psubscribe(self._channel_prefix + "*")
                    async for message in pubsub.listen():
                        if message.get("type") == "psubscribe":
                            # Ready only once Redis confirms: psubscribe() returns when the command is sent, and
                            # an event published before Redis has read it would reach neither us nor our
                            # direct delivery (publish() sees the subscription as ready).
                            self._ready.set()
                            self._gap()  # whatever was published while we were not subscribed is lost to us
                            continue
                        if message.get("type") != "pmessage":
                            continue
                        topic = message["channel"].decode().removeprefix(self._channel_prefix)
                        data = message["data"]
                        if topic == ACK_TOPIC:
                            self._acknowledged(msgspec.json.decode(data))
                            continue
                        # Decoded straight into the topic's payload (a raw part stays as it was published).
                        known = self._topics.get(topic)
                        try:
                            payload = None if known is None else msgspec.json.decode(data, type=known.payload)
                        except msgspec.DecodeError as exc:  # a process of another version: skip, stay subscribed
                            log.warning("%s event not understood (%s)", topic, exc)
                            payload = None
                        ack_id = _ack_id(data)
                        if payload is not None:
                            await self._dispatch(topic, payload)
                        if ack_id is not None:
                            await self._acknowledge(ack_id)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("redis subscription lost (%s); retrying in 1 s", exc)
                self._ready.clear()
                self._gap()
                await asyncio.sleep(1)
