"""What a recognized announcement says, in the few fields a room's lobby shows, cleaned for display."""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME_MAX = 64  # characters kept of a name or detail: a hostile packet cannot make a lobby entry large
UNKNOWN = -1  # players / max_players a game did not say

# Control characters (and the DEL/C1 block) never reach a page; Minecraft's § colour codes are not part of a name.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_MINECRAFT_CODES = re.compile(r"§.?")


@dataclass(frozen=True, slots=True)
class Announcement:
    game: str  # "minecraft", "quake3", "source", "warcraft3", "mdns", "ssdp", "other"
    name: str = ""
    port: int = 0  # the port to join at the sender's tunnel address
    players: int = UNKNOWN
    max_players: int = UNKNOWN
    detail: str = ""  # the map, or a service's type

    @property
    def key(self) -> str:
        """One lobby entry per sender and key: a host re-announcing the same game refreshes its entry."""
        return f"{self.game}:{self.port}:{self.detail if self.game in ('mdns', 'ssdp') else ''}:{self.name}"[:200]


def clean(text: str | bytes, *, minecraft: bool = False) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if minecraft:
        text = _MINECRAFT_CODES.sub("", text)
    return " ".join(_CONTROL.sub(" ", text).split())[:NAME_MAX]


def count(value: int) -> int:
    """A player count as a game said it, or UNKNOWN when it makes no sense."""
    return value if 0 <= value <= 10_000 else UNKNOWN


def port_number(value: int) -> int:
    return value if 0 < value < 65536 else 0
