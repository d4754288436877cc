"""Bulk data for the benchmarks, written straight into the database (the API would take minutes for 100 000 peers).

Rows are what the services would write: encrypted preshared keys (decrypted again for every full state, as in
production), hashed credentials, login sessions whose access tokens the real session check accepts.
"""

from __future__ import annotations

import base64
import ipaddress
import os
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


async def servers_with_peers(
    services: Services, user_id: str, nodes: int, peers_per_node: int
) -> list[tuple[str, str]]:
    """`nodes` servers holding `peers_per_node` active peers each: (server id, agent credential)."""
    created = []
    async with services.sessionmaker.begin() as db:
        for n in range(nodes):
            server, credential = await services.servers.create(
                db,
                ServerInput(name=f"bench-{n:02d}", address=f"n{n}.bench.invalid", tunnel_subnet=f"10.{100 + n}.0.0/16"),
            )
            server.serial = 1
            server.public_key = _key()
            created.append((server.id, credential))
    # Keys the full state does not carry are encrypted once and shared; the preshared key is per peer.
    private_enc = services.box.encrypt(_key())
    mirror_enc = services.box.encrypt("bench")
    for n, (server_id, _) in enumerate(created):
        rows = []
        base = ipaddress.ip_address(f"10.{100 + n}.0.2")  # the node takes .1 of its /16
        for i in range(peers_per_node):
            rows.append(
                {
                    "id": new_id(),
                    "user_id": user_id,
                    "server_id": server_id,
                    "name": f"p{i}",
                    "address": str(base + i),
                    "public_key": _key(),
                    "private_key_enc": private_enc,
                    "preshared_key_enc": services.box.encrypt(_key()),
                    "mirror_token_hash": new_id() + new_id(),
                    "mirror_token_enc": mirror_enc,
                    "created": utcnow(),
                }
            )
        async with services.sessionmaker.begin() as db:
            for start in range(0, len(rows), CHUNK):
                await db.execute(insert(Peer), rows[start : start + CHUNK])
    return created


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
