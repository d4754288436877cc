"""The lobby's parsers (node_agent/discovery/): each game's and service's announcement read as a player would
describe it, and hostile bytes (fuzzed) never raise, never make an entry where a game is expected, and never make a
large one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from node_agent.discovery import games, services
from node_agent.discovery.announcement import NAME_MAX, UNKNOWN, Announcement
from node_agent.discovery.recognize import KNOWN_PORTS, recognize
from tests.unit.agent import discovery_samples as sample


def test_minecraft_lan_world() -> None:
    assert games.minecraft(sample.minecraft("§aMundo §lde Ana", 51234)) == Announcement(
        "minecraft", "Mundo de Ana", 51234
    )
    assert games.minecraft(b"[MOTD]x[/MOTD][AD]99999[/AD]") is None  # not a port
    assert games.minecraft(b"[MOTD]LAN[/MOTD]") is None  # no port to join


def test_quake3_info_response() -> None:
    found = games.quake3(sample.quake3(), 27960)
    assert found == Announcement("quake3", "Arena de Beto", 27960, 3, 8, "q3dm17")
    assert games.quake3(b"\xff\xff\xff\xffgetinfo xxx", 27960) is None  # the query, not a server


def test_source_a2s_info_reply() -> None:
    found = games.source(sample.source(), 27015)
    assert found == Announcement("source", "CS de Caro", 27015, 5, 16, "Counter-Strike · de_dust2")
    assert games.source(b"\xff\xff\xff\xffTSource Engine Query\0", 27015) is None


def test_warcraft3_game_info() -> None:
    assert games.warcraft3(sample.warcraft3()) == Announcement("warcraft3", "DotA de Dani", 6113, 4, 10)


def test_mdns_service_instance() -> None:
    assert services.mdns(sample.mdns()) == [Announcement("mdns", "Impresora de Eva", 631, detail="_ipp._tcp")]
    query = bytearray(sample.mdns())
    query[2] = 0  # the QR bit off: a question
    assert services.mdns(bytes(query)) == []


def test_ssdp_notify_alive() -> None:
    found = services.ssdp(sample.ssdp())
    assert found == Announcement("ssdp", "Kodi de Fede", 8080, detail="urn:schemas-upnp-org:device:MediaServer:1")
    assert services.ssdp(sample.ssdp().replace(b"ssdp:alive", b"ssdp:byebye")) is None
    assert services.ssdp(b"M-SEARCH * HTTP/1.1\r\nST: ssdp:all\r\n\r\n") is None


def test_recognize_by_port() -> None:
    assert recognize(sample.minecraft(), 50000, 4445, True)[0].game == "minecraft"
    assert recognize(sample.quake3(), 27961, 50000, False)[0].port == 27961  # a unicast reply
    assert recognize(sample.minecraft(), 50000, 4445, False) == []  # only replies are read when unicast
    assert recognize(b"hola", 50000, 7777, True) == [Announcement("other", port=7777)]
    assert recognize(b"\xff\xff\xff\xffgetinfo", 50000, 27960, True) == []  # a query: nobody hosting


SAMPLES = {
    "minecraft": (sample.minecraft(), 50000, 4445),
    "quake3": (sample.quake3(), 27960, 50000),
    "source": (sample.source(), 27015, 50000),
    "warcraft3": (sample.warcraft3(), 6112, 6112),
    "mdns": (sample.mdns(), 5353, 5353),
    "ssdp": (sample.ssdp(), 50000, 1900),
}
STRICT = ("minecraft", "source", "warcraft3", "mdns", "ssdp")  # formats whose end shows a cut


def _sane(found: list[Announcement]) -> None:
    for a in found:
        assert len(a.name) <= NAME_MAX and len(a.detail) <= NAME_MAX
        assert 0 <= a.port < 65536
        assert a.players == UNKNOWN or 0 <= a.players <= 10_000
        assert not any(ord(c) < 32 for c in a.name + a.detail)


@pytest.mark.parametrize("game", STRICT)
def test_a_truncated_announcement_makes_no_entry(game: str) -> None:
    payload, source_port, dest_port = SAMPLES[game]
    for cut in range(len(payload)):
        assert recognize(payload[:cut], source_port, dest_port, True) == [], (game, cut)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=600), st.sampled_from(sorted(KNOWN_PORTS)), st.booleans())
def test_garbage_on_a_game_port_makes_no_entry(payload: bytes, port: int, to_group: bool) -> None:
    assert recognize(payload, port, port, to_group) == []


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_mutated_announcements_never_raise(game: str, data: st.DataObject) -> None:
    """Bytes of a real announcement flipped, cut, repeated: whatever comes out is small and printable."""
    payload, source_port, dest_port = SAMPLES[game]
    mutated = bytearray(payload)
    for _ in range(data.draw(st.integers(0, 8))):
        at = data.draw(st.integers(0, max(len(mutated) - 1, 0)))
        if mutated:
            mutated[at] = data.draw(st.integers(0, 255))
    mutated += data.draw(st.binary(max_size=64)) * data.draw(st.integers(0, 40))
    _sane(recognize(bytes(mutated), source_port, dest_port, True))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=1500))
def test_hostile_dns_never_raises(payload: bytes) -> None:
    # Compression loops, pointers past the end, label lengths over the packet: all are "no announcement".
    _sane(services.mdns(b"\x00\x00\x84\x00" + payload))


def test_a_dns_compression_loop_ends() -> None:
    loop = b"\x00\x00\x84\x00\x00\x00\x00\x01\x00\x00\x00\x00" + b"\xc0\x0c"
    assert services.mdns(loop) == []


def test_long_names_are_cut() -> None:
    found = games.minecraft(sample.minecraft("x" * 900))
    assert found is not None and len(found.name) == NAME_MAX
