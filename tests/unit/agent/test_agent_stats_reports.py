"""Stats reports carry what changed (node_agent/stats.py): every peer in a stream's first report and once a minute,
otherwise only peers whose figures moved or whose handshake left the connected window; the node's totals always."""

from __future__ import annotations

from node_agent.backends.base import PeerStat
from node_agent.stats import CONNECTED_SECONDS, StatsReporter

NOW = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def stat(n: int, handshake: float = 0, rx: int = 0, tx: int = 0, endpoint: str = "") -> PeerStat:
    return PeerStat(f"key-{n}", int(handshake), rx, tx, endpoint)


def keys(report: object) -> set[str]:
    return {p.public_key for p in report.peers}  # type: ignore[attr-defined]


def test_the_first_report_of_a_stream_holds_every_peer_then_only_what_changed() -> None:
    clock = Clock()
    reporter = StatsReporter(full_interval=60, clock=clock)
    device = [stat(1, NOW - 10, 100, 200, "198.51.100.1:4000"), stat(2), stat(3, NOW - 86_400, 5, 6)]
    first = reporter.report(7, device)
    assert first.complete and first.serial == 7
    assert keys(first) == {"key-1", "key-2", "key-3"}

    clock.now += 5
    assert keys(reporter.report(7, device)) == set()  # nobody moved: an empty report, the totals only

    clock.now += 5
    device[0] = stat(1, NOW - 10, 1_600, 40_200, "198.51.100.1:4000")  # traffic
    device[2] = stat(3, NOW - 86_400, 5, 6, "203.0.113.9:5000")  # a new endpoint only
    report = reporter.report(7, device)
    assert not report.complete
    assert keys(report) == {"key-1", "key-3"}
    line = next(p for p in report.peers if p.public_key == "key-1")
    assert (line.rx_bytes, line.tx_bytes, line.endpoint) == (1_600, 40_200, "198.51.100.1:4000")


def test_the_totals_count_every_peer_whatever_the_report_holds() -> None:
    clock = Clock()
    reporter = StatsReporter(clock=clock)
    device = [stat(1, NOW - 10, 100, 200), stat(2, NOW - 500, 1, 2), stat(3)]
    reporter.report(1, device)
    clock.now += 5
    report = reporter.report(1, device)
    assert keys(report) == set()
    assert report.HasField("totals")
    assert (report.totals.peers, report.totals.peers_connected) == (3, 1)
    assert (report.totals.rx_bytes, report.totals.tx_bytes) == (101, 202)


def test_a_peer_whose_handshake_grows_old_is_sent_once_when_it_stops_counting_as_connected() -> None:
    # Nothing of its figures moves, but the control plane's room presence and connected count change then.
    clock = Clock()
    reporter = StatsReporter(full_interval=3600, clock=clock)
    device = [stat(1, NOW - 170, 10, 20)]
    reporter.report(1, device)
    clock.now += 5
    assert keys(reporter.report(1, device)) == set()  # 175 s old: still connected
    clock.now += 5
    report = reporter.report(1, device)  # 185 s: not any more
    assert keys(report) == {"key-1"} and report.totals.peers_connected == 0
    assert report.peers[0].latest_handshake == int(NOW - 170)
    clock.now += 5
    assert keys(reporter.report(1, device)) == set()
    assert CONNECTED_SECONDS == 180  # WireGuard's REJECT_AFTER_TIME, the window the control plane uses too


def test_every_peer_again_once_the_full_interval_has_passed() -> None:
    clock = Clock()
    reporter = StatsReporter(full_interval=60, clock=clock)
    device = [stat(n, 0) for n in range(5)]
    reports = []
    for _ in range(25):  # two minutes at 5 s
        reports.append(reporter.report(1, device))
        clock.now += 5
    complete = [n for n, r in enumerate(reports) if r.complete]
    assert complete == [0, 12, 24]
    assert all(len(r.peers) == 5 for r in reports if r.complete)
    assert all(len(r.peers) == 0 for r in reports if not r.complete)


def test_a_new_stream_starts_with_every_peer() -> None:
    # The control plane at the other end (restarted, or another process) knows nothing of the node yet.
    clock = Clock()
    reporter = StatsReporter(full_interval=60, clock=clock)
    device = [stat(1, NOW - 10, 1, 1), stat(2)]
    reporter.report(1, device)
    clock.now += 5
    assert keys(reporter.report(1, device)) == set()
    reporter.stream_started()
    clock.now += 5
    report = reporter.report(1, device)
    assert report.complete and keys(report) == {"key-1", "key-2"}


def test_a_peer_added_to_the_device_is_sent_and_one_removed_is_forgotten() -> None:
    clock = Clock()
    reporter = StatsReporter(full_interval=60, clock=clock)
    reporter.report(1, [stat(1), stat(2)])
    clock.now += 5
    report = reporter.report(2, [stat(2), stat(3)])
    assert keys(report) == {"key-3"} and report.totals.peers == 2
    clock.now += 5
    assert keys(reporter.report(3, [stat(1), stat(2), stat(3)])) == {"key-1"}  # back: new to this stream again
