"""Read-only transactions on SQLite: no write lock held against writers, and no writing through them."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from controlplane.db import (
    ReadOnlyTransaction,
    create_engine,
    create_read_sessionmaker,
    create_sessionmaker,
    transaction,
)


async def test_a_reader_does_not_hold_writers_back_and_cannot_write(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (a INTEGER)"))
    reads, writes = create_read_sessionmaker(engine), create_sessionmaker(engine)
    try:
        with pytest.raises(ReadOnlyTransaction):
            async with transaction(reads) as reader:
                assert (await reader.execute(text("SELECT count(*) FROM t"))).scalar() == 0
                # A writer commits while the reader's transaction is open (it would wait out the busy timeout and
                # fail if the reader held the write lock), and the reader keeps its snapshot.
                async with transaction(writes) as writer:
                    await writer.execute(text("INSERT INTO t VALUES (1)"))
                assert (await reader.execute(text("SELECT count(*) FROM t"))).scalar() == 0
                await reader.execute(text("INSERT INTO t VALUES (2)"))
        async with transaction(reads) as reader:
            assert (await reader.execute(text("SELECT a FROM t"))).scalars().all() == [1]
    finally:
        await engine.dispose()
