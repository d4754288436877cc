"""The gRPC side: dial the control plane, run one Connect stream, reconnect with jittered backoff
(node_agent/backoff.py: about a second at first, as after a control-plane restart; longer while it stays away).

A stream that ends because applying the state failed is another matter: the control plane is there, the host is
what refuses (a backend it cannot run, a firewall error), and a resync a second later rebuilds the same full state
to fail the same way. Those resyncs wait on a backoff of their own that doubles from the first failure."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator

import grpc

from node_agent.agent import NodeAgent
from node_agent.backoff import Backoff
from node_agent.config import AgentConfig
from node_agent.connection_hints import connection_hint
from node_agent.metrics import AgentMetrics
from protos import agent_pb2, agent_pb2_grpc

log = logging.getLogger(__name__)

_CLOSE = object()


class Refused(Exception):
    """The control plane refused this node (bad credential, revoked node, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def make_channel(config: AgentConfig) -> grpc.aio.Channel:
    options = [
        # Notice a dead control plane (or a NAT that dropped us) within about a minute, even when idle.
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        # A 100 000-peer snapshot is ~15 MB: the 4 MB default would refuse it.
        ("grpc.max_receive_message_length", 256 * 1024 * 1024),
        # Every session dials on a new channel, after our own short delay (backoff.py). gRPC shares connections
        # between the channels of a process by default, with their reconnect backoff (1 s, growing 1.6 times per
        # failure): after a control plane had been away a few seconds, a new channel failed at once with the last
        # error ("No such file or directory") until that backoff ran out, 3-5 s after the control plane was back.
        ("grpc.use_local_subchannel_pool", 1),
    ]
    if config.tls_ca is not None:
        credentials = grpc.ssl_channel_credentials(root_certificates=config.tls_ca.read_bytes())
        return grpc.aio.secure_channel(config.control_url, credentials, options=options)
    return grpc.aio.insecure_channel(config.control_url, options=options)


class ControlClient:
    """Runs sessions forever. One session = one Connect stream; every failure leads to a delayed retry."""

    def __init__(
        self,
        config: AgentConfig,
        agent: NodeAgent,
        backoff: Backoff | None = None,
        metrics: AgentMetrics | None = None,
    ) -> None:
        self.config = config
        self.agent = agent
        self.backoff = backoff or Backoff(config.backoff_initial, config.backoff_max)
        # Resyncs after a failed apply: exponential from the first failure (no quick phase), capped, jittered; reset
        # by the next apply that succeeds.
        self.apply_backoff = Backoff(config.backoff_initial, config.backoff_max, quick_attempts=0)
        self._apply_failed = False  # the last session ended to resync after a failed apply
        self.metrics = metrics or AgentMetrics()
        self.metrics.track(lambda: agent.peer_count, lambda: agent.applied_serial)
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                self._apply_failed = False
                await self.run_session()
                if self._apply_failed:
                    delay = self.apply_backoff.next_delay()
                    log.warning(
                        "applying the control plane's state failed %d time(s) in a row (the error is logged above); "
                        "full resync in %.1f s",
                        self.apply_backoff.attempt,
                        delay,
                    )
                else:
                    delay = self.backoff.next_delay()
                    log.info("control plane closed the stream; reconnecting in %.1f s", delay)
            except Refused as exc:
                # Hammering will not fix a credential: wait the longest delay before asking again.
                delay = self.backoff.cap
                log.error("control plane refused this node (%s); retrying in %.0f s", exc, delay)
            except grpc.aio.AioRpcError as exc:
                delay = self.backoff.next_delay()
                hint = connection_hint(exc.details() or "", self.config)
                log.warning(
                    "control plane unreachable (%s: %s); retrying in %.1f s%s",
                    exc.code().name,
                    exc.details(),
                    delay,
                    f". Fix: {hint}" if hint else "",
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                delay = self.backoff.next_delay()
                log.exception("session failed; retrying in %.1f s", delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=delay)

    async def run_session(self) -> None:
        """One stream from Hello to its end. Returns when the server ends it or a resync is needed."""
        outbox: asyncio.Queue[object] = asyncio.Queue()

        async def requests() -> AsyncIterator[agent_pb2.AgentMessage]:
            while True:
                item = await outbox.get()
                if item is _CLOSE:
                    return
                assert isinstance(item, agent_pb2.AgentMessage)
                yield item

        self.agent.connection_started()
        tls = f"TLS, CA {self.config.tls_ca}" if self.config.tls_ca else "plaintext"
        log.debug("connecting to %s (%s)", self.config.control_url, tls)
        outbox.put_nowait(self.agent.hello())
        async with make_channel(self.config) as channel:
            stub = agent_pb2_grpc.NodeControlStub(channel)
            call = stub.Connect(requests())
            self.metrics.connected.set(1)
            background = [
                asyncio.create_task(self._stats_loop(outbox)),
                asyncio.create_task(self._keepalive_loop(outbox)),
                asyncio.create_task(self._discovery_loop(outbox)),
                asyncio.create_task(self._rtt_loop()),
            ]
            stop_wait = asyncio.create_task(self._stopping.wait())
            try:
                reader = call.__aiter__()
                while True:
                    next_msg = asyncio.ensure_future(reader.__anext__())
                    done, _ = await asyncio.wait({next_msg, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
                    if next_msg not in done:
                        next_msg.cancel()
                        return
                    try:
                        message = next_msg.result()
                    except StopAsyncIteration:
                        return
                    if not await self._dispatch(message, outbox):
                        return
            finally:
                self.metrics.connected.set(0)
                outbox.put_nowait(_CLOSE)
                for task in (*background, stop_wait):
                    task.cancel()
                call.cancel()

    async def _dispatch(self, message: agent_pb2.ControlMessage, outbox: asyncio.Queue[object]) -> bool:
        """Handle one control message; False ends the session."""
        kind = message.WhichOneof("payload")
        if kind in ("full_state", "delta"):
            # What arrived, never its content: peer specs carry preshared keys.
            body = getattr(message, kind)
            log.debug("%s received: operation %s, serial %s", kind, body.operation_id, body.serial)
        if kind == "full_state":
            started = time.perf_counter()
            result = await self.agent.handle_full_state(message.full_state)
            self.metrics.record_apply("full_state", time.perf_counter() - started, result.result.ok)
            outbox.put_nowait(result)
            if result.result.ok:
                self.backoff.reset()  # a snapshot applied: this connection is healthy
                self.apply_backoff.reset()
        elif kind == "delta":
            started = time.perf_counter()
            result = await self.agent.handle_delta(message.delta)
            self.metrics.record_apply("delta", time.perf_counter() - started, result.result.ok)
            outbox.put_nowait(result)
            if result.result.ok:
                self.apply_backoff.reset()
        elif kind == "in_sync":
            if not self.agent.handle_in_sync(message.in_sync):
                return False  # reconnect: the next Hello reports serial 0 and gets a snapshot
            self.backoff.reset()  # acknowledged by the control plane: this connection is healthy
        elif kind == "keepalive":
            pass
        elif kind == "refused":
            raise Refused(message.refused.code, message.refused.message)
        else:
            log.warning("unknown control message %r ignored", kind)
        if self.agent.resync_needed:
            # The device may now differ from what the agent believes: a fresh stream brings a fresh snapshot.
            self._apply_failed = True
            await asyncio.sleep(0.1)  # let the error result leave before the stream closes
            return False
        return True

    async def _stats_loop(self, outbox: asyncio.Queue[object]) -> None:
        while True:
            await asyncio.sleep(self.config.stats_interval)
            try:
                stats = await self.agent.read_stats()
            except Exception as exc:  # stats are best effort: never end the session for them
                log.warning("cannot read stats: %s", exc)
                continue
            if stats is not None:
                self.metrics.record_handshakes(s.latest_handshake for s in stats)
                for message in self.agent.stats_report(stats):  # a large report goes in parts, in a row
                    outbox.put_nowait(message)

    async def _discovery_loop(self, outbox: asyncio.Queue[object]) -> None:
        """The rooms' lobby: what was heard since the last report, at most once per interval (rate limited here)."""
        if self.config.discovery_interval <= 0:
            return
        while True:
            await asyncio.sleep(self.config.discovery_interval)
            message = self.agent.discovery_report()
            if message is not None:
                report = message.discovery
                log.debug("discovery report: %d game(s), %d sender(s)", len(report.games), len(report.senders))
                outbox.put_nowait(message)

    async def _rtt_loop(self) -> None:
        """Round trips to room members (node_agent/rtt.py): one bounded round per interval; the stats loop sends
        the figures with the peers' other figures."""
        if self.config.rtt_interval <= 0:
            return
        while True:
            await asyncio.sleep(self.config.rtt_interval)
            try:
                await self.agent.measure_round_trips()
            except Exception as exc:  # best effort, like the stats: never end the session for it
                log.warning("cannot time round trips to room members: %s", exc)

    async def _keepalive_loop(self, outbox: asyncio.Queue[object]) -> None:
        while True:
            await asyncio.sleep(self.config.keepalive_interval)
            outbox.put_nowait(agent_pb2.AgentMessage(keepalive=agent_pb2.Keepalive(sent_at_ms=int(time.time() * 1000))))
