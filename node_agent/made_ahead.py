"""Making items in a thread of their own, ahead of the code that uses them."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Generator, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def made_ahead(items: Iterator[T], depth: int = 4, name: str = "items") -> Generator[T, None, None]:
    """`items`, made by a thread of their own up to `depth` ahead of the caller.

    For work that waits on something outside Python: the kernel takes each netlink message inside `send()`, which
    releases the GIL, so the next messages are encoded meanwhile on the other core instead of all before the first
    send; a snapshot's peers are converted likewise while the first ones are being applied (docs/testing-kernel.md,
    "The kernel backend's netlink"). What the maker raises is raised here; a caller that stops early (or closes
    the generator) stops the maker."""
    ready: queue.Queue[tuple[bool, Any]] = queue.Queue(depth)
    stopped = threading.Event()

    def offer(entry: tuple[bool, Any]) -> bool:
        while not stopped.is_set():
            try:
                ready.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def make() -> None:
        try:
            for item in items:
                if not offer((False, item)):
                    return
        except BaseException as exc:  # handed to the caller, raised there
            offer((True, exc))
            return
        offer((True, None))

    maker = threading.Thread(target=make, name=f"made-ahead-{name}", daemon=True)
    maker.start()
    try:
        while True:
            done, value = ready.get()
            if done:
                if value is not None:
                    raise value
                return
            yield value
    finally:
        stopped.set()
        maker.join()


class Ahead(Generic[T]):
    """`items` made by a thread of their own from the moment this is created, taken with `async for` on the event
    loop (which never blocks on them). `stop()` ends the maker early; what it raises is raised to the taker."""

    def __init__(self, items: Iterator[T], name: str = "items") -> None:
        self._loop = asyncio.get_running_loop()
        self._ready: asyncio.Queue[tuple[bool, Any]] = asyncio.Queue()
        self._stopped = threading.Event()
        threading.Thread(target=self._make, args=(items,), name=f"made-ahead-{name}", daemon=True).start()

    def _offer(self, done: bool, value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is taking any more
            self._loop.call_soon_threadsafe(self._ready.put_nowait, (done, value))

    def _make(self, items: Iterator[T]) -> None:
        try:
            for item in items:
                if self._stopped.is_set():
                    return
                self._offer(False, item)
        except BaseException as exc:  # handed to the taker, raised there
            self._offer(True, exc)
            return
        self._offer(True, None)

    def __aiter__(self) -> Ahead[T]:
        return self

    async def __anext__(self) -> T:
        done, value = await self._ready.get()
        if done:
            self._ready.put_nowait((done, None))  # the end stays the end
            if value is not None:
                raise value
            raise StopAsyncIteration
        return value  # type: ignore[no-any-return]

    def stop(self) -> None:
        self._stopped.set()
