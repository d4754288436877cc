"""SQLite statements run in one hand-off to aiosqlite's thread (controlplane/sqlite_driver.py): what SQLAlchemy reads
off a cursor is still there (rows, row counts, errors), so the ORM's checks and the API's error answers hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, exc, insert, select, text, update

from controlplane.db import create_engine, create_sessionmaker, transaction

_metadata = MetaData()
_things = Table("things", _metadata, Column("id", Integer, primary_key=True), Column("name", String, unique=True))


async def test_rows_counts_and_errors_come_back_as_sqlalchemy_expects(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_metadata.create_all)
            # Many rows in one statement, then a RETURNING statement and a plain read.
            await conn.execute(insert(_things), [{"id": i, "name": f"n{i}"} for i in range(1, 4)])
            returned = await conn.execute(insert(_things).values(id=9, name="nine").returning(_things.c.name))
            assert returned.scalars().all() == ["nine"]
            assert (await conn.execute(select(_things.c.name).order_by(_things.c.id))).scalars().all() == [
                "n1",
                "n2",
                "n3",
                "nine",
            ]
            # The ORM tells a lost update by the matched row count: it must be the database's.
            changed = await conn.execute(update(_things).where(_things.c.id > 1).values(name=_things.c.name + "!"))
            assert changed.rowcount == 3
            assert (await conn.execute(update(_things).where(_things.c.id == 99).values(name="x"))).rowcount == 0
        # A constraint the database enforces surfaces as SQLAlchemy's error, and the transaction rolls back whole.
        with pytest.raises(exc.IntegrityError):
            async with transaction(create_sessionmaker(engine)) as db:
                await db.execute(insert(_things).values(id=20, name="new"))
                await db.execute(insert(_things).values(id=21, name="n1"))
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT count(*) FROM things"))).scalar() == 4
    finally:
        await engine.dispose()
