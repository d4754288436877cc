"""Fan-out of events between control-plane processes: in-process by default, through Redis pub/sub when set."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from redis.asyncio import Redis

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], Awaitable[None]]


class EventBus:
    """Topics: "user" (a push for one user's browsers) and "node" (a node's desired state changed)."""

    def __init__(self, redis: Redis | None = None, prefix: str = "vpn:") -> None:
        self._redis = redis
        self._channel_prefix = f"{prefix}events:"
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self._reader: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    def subscribe(self, topic: str, handler: Handler) -> None:
        self._handlers[topic].append(handler)

    async def publish(self, topic: str, payload: dict[str, Any]) -> None:
        if self._redis is None:
            await self._dispatch(topic, payload)
            return
        try:
            await self._redis.publish(self._channel_prefix + topic, msgspec.json.encode(payload))
        except Exception as exc:
            log.warning("redis publish failed (%s); delivering in this process only", exc)
            await self._dispatch(topic, payload)
            return
        if not self._ready.is_set():
            # Our own subscription is down (Redis just came back, the reader is re-subscribing): Redis carried
            # the event to the other processes but not to this one, so deliver it here directly.
            await self._dispatch(topic, payload)

    async def _dispatch(self, topic: str, payload: dict[str, Any]) -> None:
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
                async with self._redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.psubscribe(self._channel_prefix + "*")
                    self._ready.set()
                    async for message in pubsub.listen():
                        if message.get("type") != "pmessage":
                            continue
                        topic = message["channel"].decode().removeprefix(self._channel_prefix)
                        await self._dispatch(topic, msgspec.json.decode(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("redis subscription lost (%s); retrying in 1 s", exc)
                self._ready.clear()
                await asyncio.sleep(1)
