"""Bulk data for the benchmarks, written straight into the database (the API would take minutes for 100 000 peers).

Rows are what the services would write: encrypted preshared keys (decrypted again for every full state, as in
production), hashed credentials, login sessions whose access tokens the real session check accepts.
"""

from __future__ import annotations

import base64
import ipaddress
import os
import uuid
from datetime import timedelta

import jwt
from sqlalchemy import insert

from controlplane.db import new_id, utcnow
from controlplane.domain.accounts.models import LoginSession, Role, User
from controlplane.domain.accounts.sessions import CLIENT
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.service import ServerInput
from controlplane.services import Services

CHUNK = 2000


def _key() -> str:
    return base64.b64encode(os.urandom(32)).decode()


async def customers_with_tokens(services: Services, count: int, prefix: str = "b") -> list[tuple[str, str]]:
    """`count` customers, each with one login session: (user id, access token valid for an hour)."""
    now = utcnow()
    users, sessions, out = [], [], []
    for n in range(count):
        user_id, session_id = new_id(), new_id()
        name = f"{prefix}{n:06d}"
        users.append(
            {"id": user_id, "username": name, "username_key": name, "password_hash": "x", "role": Role.CUSTOMER}
        )
        sessions.append(
            {"id": session_id, "user_id": user_id, "audience": CLIENT, "expires_at": now + timedelta(days=1)}
        )
        # The claims SessionService puts in an access token.
        claims = {
            "sub": user_id,
            "sid": session_id,
            "aud": CLIENT,
            "iat": int(now.timestamp()),
            "exp": int((now + timedelta(hours=1)).timestamp()),
        }
        out.append((user_id, jwt.encode(claims, services.box.signing_key, algorithm="HS256")))
    async with services.sessionmaker.begin() as db:
        for start in range(0, count, CHUNK):
            await db.execute(insert(User), users[start : start + CHUNK])
            await db.execute(insert(LoginSession), sessions[start : start + CHUNK])
    return out


def _subnet(n: int) -> str:
    """Node n's tunnel subnet: 10.(100+n).0.0/16 for the first 100 nodes, then a /21 each (2 046 addresses) in
    10.0.0.0-10.99.255.255 (room for 3 200 more)."""
    if n < 100:
        return f"10.{100 + n}.0.0/16"
    return f"{ipaddress.ip_address('10.0.0.0') + (n - 100) * 2048}/21"


# What a peer row holds, in this order (the other columns stay NULL: no pending change).
PEER_COLUMNS = (
    "id", "user_id", "server_id", "name", "active", "disabled_by_staff", "manual_payment", "created",
    "address", "public_key", "private_key_enc", "preshared_key_enc", "mirror_token_hash", "mirror_token_enc",
)  # fmt: skip


async def servers_with_peers(
    services: Services, user_id: str, nodes: int, peers_per_node: int
) -> list[tuple[str, str]]:
    """`nodes` servers holding `peers_per_node` active peers each: (server id, agent credential)."""
    created = []
    async with services.sessionmaker.begin() as db:
        for n in range(nodes):
            server, credential = await services.servers.create(
                db,
                ServerInput(name=f"bench-{n:04d}", address=f"n{n}.bench.invalid", tunnel_subnet=_subnet(n)),
            )
            server.serial = 1
            server.public_key = _key()
            created.append((server.id, credential))
    # Keys the full state does not carry are encrypted once and shared; the preshared key is per peer.
    private_enc = services.box.encrypt(_key())
    mirror_enc = services.box.encrypt("bench")
    encrypt = services.box.encrypt
    now = utcnow()
    for n, (server_id, _) in enumerate(created):
        base = ipaddress.ip_address(_subnet(n).split("/")[0]) + 2  # the node takes .1 of its subnet
        rows = [
            (
                uuid.uuid4().hex,
                user_id,
                server_id,
                f"p{i}",
                True,
                False,
                False,
                now,
                str(base + i),
                _key(),
                private_enc,
                encrypt(_key()),
                uuid.uuid4().hex + uuid.uuid4().hex,
                mirror_enc,
            )
            for i in range(peers_per_node)
        ]
        await _insert_peers(services, rows)
    return created


async def _insert_peers(services: Services, rows: list[tuple[object, ...]]) -> None:
    """PostgreSQL: one COPY (a million rows in seconds); SQLite: executemany in chunks of CHUNK."""
    async with services.sessionmaker.begin() as db:
        connection = await db.connection()
        if connection.dialect.name == "postgresql":
            raw = (await connection.get_raw_connection()).driver_connection
            await raw.execute("SET LOCAL synchronous_commit TO OFF")  # seeding: no need to wait for each flush
            await raw.copy_records_to_table("peers", records=rows, columns=PEER_COLUMNS)
            return
        for start in range(0, len(rows), CHUNK):
            await db.execute(
                insert(Peer), [dict(zip(PEER_COLUMNS, row, strict=True)) for row in rows[start : start + CHUNK]]
            )


# A customer's devices: the peer-list benchmarks list each with its server and plan history.
LISTED_PEERS = 10


async def customer_with_listed_peers(services: Services) -> str:
    """One customer holding LISTED_PEERS peers on one server; returns their access token. Closes `services`."""
    try:
        [(user_id, token)] = await customers_with_tokens(services, 1)
        await servers_with_peers(services, user_id, nodes=1, peers_per_node=LISTED_PEERS)
    finally:
        await services.close()
    return token
