"""Usage as the API shows it: bytes from the customer's side (download = what the node sent to the device)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec


class UsagePoint(msgspec.Struct):
    start: datetime  # start of the UTC hour, day or month
    download: int
    upload: int


class UsageSeries(msgspec.Struct):
    range: Literal["24h", "30d", "1y"]
    bucket: Literal["hour", "day", "month"]
    points: list[UsagePoint]
    download: int  # over the whole range
    upload: int


class PeerMonthUsage(msgspec.Struct):
    peer: str
    download: int
    upload: int


class ServerMonthUsage(msgspec.Struct):
    id: str
    name: str
    download: int
    upload: int


class UsageOverview(msgspec.Struct):
    """The manager overview's traffic: this UTC month per server and in total, and the last 30 days per day."""

    month_start: datetime
    servers: list[ServerMonthUsage]
    download: int
    upload: int
    days: list[UsagePoint]
