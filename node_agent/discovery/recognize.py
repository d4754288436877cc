"""One discovery packet -> what it announces: by port, the parser of the game or service that uses it; a packet
to a broadcast or multicast address on any other port is "an announcement on port N" (the page adds the host)."""

from __future__ import annotations

from node_agent.discovery import games, services
from node_agent.discovery.announcement import Announcement

# Ports whose packets are understood or ignored by a parser: garbage there is not an "other" announcement.
KNOWN_PORTS = frozenset(
    {
        games.MINECRAFT_PORT,
        games.WARCRAFT3_PORT,
        services.MDNS_PORT,
        services.SSDP_PORT,
        *games.QUAKE3_PORTS,
        *games.SOURCE_PORTS,
    }
)


def recognize(payload: bytes, source_port: int, dest_port: int, to_group: bool) -> list[Announcement]:
    """`to_group`: sent to a broadcast or multicast address (else a unicast reply between members, which only the
    Quake III and Source parsers read: their servers answer a LAN query directly to the one who asked)."""
    if source_port in games.QUAKE3_PORTS:
        found = games.quake3(payload, source_port)
        return [found] if found else []
    if source_port in games.SOURCE_PORTS:
        found = games.source(payload, source_port)
        return [found] if found else []
    if not to_group:
        return []
    if dest_port == games.MINECRAFT_PORT:
        found = games.minecraft(payload)
    elif dest_port == games.WARCRAFT3_PORT:
        found = games.warcraft3(payload)
    elif dest_port == services.MDNS_PORT:
        return services.mdns(payload)
    elif dest_port == services.SSDP_PORT:
        found = services.ssdp(payload)
    elif dest_port in KNOWN_PORTS:
        return []  # a LAN query (getinfo, A2S_INFO): somebody looking, not hosting
    else:
        found = Announcement("other", port=dest_port)
    return [found] if found else []
