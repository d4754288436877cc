"""The PostgreSQL server the test layers make their throwaway databases on."""

from __future__ import annotations

import asyncio
import os

import asyncpg

PG_ADMIN_URL = os.environ.get("VPN_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def pg_admin(sql: str) -> None:
    """CREATE/DROP DATABASE cannot run inside a transaction, so talk to the server with asyncpg directly."""

    async def run() -> None:
        conn = await asyncpg.connect(PG_ADMIN_URL, timeout=5)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())
