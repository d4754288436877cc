"""Two devices on one peer, from the endpoints its node reports (controlplane/domain/peers/devices.py): the warning
comes for devices taking turns, never for one device that moves."""

from __future__ import annotations

import pytest

from controlplane.domain.peers.devices import (
    MAX_MOVES,
    WINDOW_SECONDS,
    Trail,
    follow,
    returns,
    shared,
    shared_after,
)

A, B, C, D = "203.0.113.5:51000", "198.51.100.7:40000", "192.0.2.9:3333", "[2001:db8::1]:51820"


def every(seconds: float, *endpoints: str) -> list[tuple[float, str]]:
    """One report per endpoint, `seconds` apart (the agent reports every 5 s; a sample may repeat)."""
    return [(i * seconds, e) for i, e in enumerate(endpoints)]


@pytest.mark.parametrize(
    ("name", "sightings"),
    [
        ("two devices taking turns", every(5, A, B, A, B)),
        ("taking turns with repeated samples", every(5, A, A, B, B, B, A, A, B)),
        ("taking turns slowly, within ten minutes", every(120, A, B, A, B)),
        (
            "two devices behind one home router (same IP, own ports)",
            every(5, A, A.replace("51000", "51001"), A, A.replace("51000", "51001")),
        ),
        ("a third address in between", every(5, A, B, C, A, B)),
        ("IPv6 and IPv4 devices", every(5, D, A, D, A)),
        ("after a quiet hour on one address", [(0, A), (3600, A), (3605, B), (3610, A), (3615, B)]),
        ("long fight", every(5, *([A, B] * 50))),
    ],
)
def test_devices_taking_turns_are_warned(name: str, sightings: list[tuple[float, str]]) -> None:
    assert shared_after(sightings), name


@pytest.mark.parametrize(
    ("name", "sightings"),
    [
        ("nothing reported", []),
        ("never connected (empty endpoint)", every(5, "", "", "")),
        ("one address all day", every(5, *[A] * 100)),
        ("phone leaves Wi-Fi for mobile data once", every(5, A, A, A, B, B, B, B)),
        ("phone goes out and comes back home", every(5, A, A, B, B, A, A, A)),
        ("roaming through new addresses (train, NAT rebinding)", every(5, A, B, C, D)),
        (
            "mobile data with a new port each time",
            every(5, A, B, B.replace("40000", "40001"), B.replace("40000", "40002")),
        ),
        ("empty samples between the same address", every(5, A, "", A, "", A)),
        ("turns spread over more than the window", every(WINDOW_SECONDS, A, B, A, B)),
        ("out and back twice an hour apart", [(0, A), (60, B), (120, A), (3700, B), (3760, A)]),
    ],
)
def test_one_device_that_moves_is_not_warned(name: str, sightings: list[tuple[float, str]]) -> None:
    assert not shared_after(sightings), name


def test_the_third_turn_is_the_one_that_warns() -> None:
    trail: Trail | None = None
    seen = []
    for at, endpoint in every(5, A, B, A, B, A):
        trail = follow(trail, endpoint, at)
        seen.append(shared(trail))
    assert seen == [False, False, False, True, True]
    assert returns(trail) == 3


def test_an_empty_report_keeps_the_trail_as_it_was() -> None:
    trail = follow(follow(None, A, 0), B, 5)
    assert follow(trail, "", 10) is trail
    # Nothing moved: the same trail, no new object per peer and report (the stats path of every node).
    assert follow(trail, B, 15) is trail
    assert follow(None, "", 0) is None


def test_old_moves_are_forgotten_and_the_trail_stays_small() -> None:
    trail = None
    for at, endpoint in every(1, *([A, B] * (MAX_MOVES * 2))):
        trail = follow(trail, endpoint, at)
    assert trail is not None and len(trail.moves) == MAX_MOVES
    quiet = follow(trail, B, MAX_MOVES * 4 + WINDOW_SECONDS + 1)
    assert quiet is not None and quiet.moves == () and not shared(quiet)
