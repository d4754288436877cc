"""What the node has heard from each room member, summarised for the control plane (DiscoveryReport).

Bounded: at most ENTRIES_PER_SENDER games per member (a member announcing more keeps its first ones until they
expire), and only room members on this node are tracked (room size is capped), so memory per room is bounded.
Reports are rate limited by their loop (node_agent/discovery/capture.py): one every few seconds at most, and
none when nothing was heard.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from node_agent.discovery.announcement import Announcement
from protos import agent_pb2

ENTRIES_PER_SENDER = 8
EXPIRY_SECONDS = 30.0  # an entry is forgotten this long after its last announcement
MAX_SENDERS = 4096


@dataclass(slots=True)
class _Sender:
    games: dict[str, tuple[Announcement, float]] = field(default_factory=dict)  # key -> (game, last heard)
    packets: int = 0  # discovery packets since the last report
    last_packet: float = 0.0
    fresh: set[str] = field(default_factory=set)  # keys heard since the last report


class DiscoveryTracker:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._senders: dict[str, _Sender] = {}
        self._lock = threading.Lock()  # the capture thread observes, the event loop reports

    def observe(self, sender: str, found: list[Announcement]) -> None:
        """One discovery packet from `sender` (a room member on this node) and what it announced, if anything."""
        now = self._clock()
        with self._lock:
            state = self._senders.get(sender)
            if state is None:
                if len(self._senders) >= MAX_SENDERS:
                    return
                state = self._senders[sender] = _Sender()
            state.packets += 1
            state.last_packet = now
            for game in found:
                key = game.key
                if key not in state.games and len(state.games) >= ENTRIES_PER_SENDER:
                    self._expire(state, now)
                    if len(state.games) >= ENTRIES_PER_SENDER:
                        continue
                state.games[key] = (game, now)
                state.fresh.add(key)

    def forget_except(self, members: frozenset[str]) -> None:
        """Members that left every room on this node: nothing of theirs is kept or reported again."""
        with self._lock:
            for sender in set(self._senders) - members:
                del self._senders[sender]

    def report(self) -> agent_pb2.DiscoveryReport | None:
        """Entries heard since the last report and packet counts per sender; None when nothing was heard."""
        now = self._clock()
        with self._lock:
            report = agent_pb2.DiscoveryReport()
            for address, state in sorted(self._senders.items()):
                self._expire(state, now)
                if state.packets:
                    report.senders.append(
                        agent_pb2.DiscoverySender(
                            address=address, packets=state.packets, seconds_ago=int(now - state.last_packet)
                        )
                    )
                for key in sorted(state.fresh & set(state.games)):
                    game, heard = state.games[key]
                    report.games.append(
                        agent_pb2.DiscoveredGame(
                            sender=address,
                            key=key,
                            game=game.game,
                            name=game.name,
                            port=game.port,
                            players=game.players,
                            max_players=game.max_players,
                            detail=game.detail,
                            seconds_ago=int(now - heard),
                        )
                    )
                state.packets = 0
                state.fresh.clear()
            for address in [a for a, s in self._senders.items() if not s.games and now - s.last_packet > 60]:
                del self._senders[address]
            return report if report.senders or report.games else None

    @staticmethod
    def _expire(state: _Sender, now: float) -> None:
        for key in [k for k, (_, heard) in state.games.items() if now - heard > EXPIRY_SECONDS]:
            del state.games[key]
