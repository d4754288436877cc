"""Database engine, the declarative base and the one-transaction-per-request session provider."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, MetaData, any_, bindparam, event
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, InstrumentedAttribute, Session
from sqlalchemy.pool import NullPool
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeDecorator

from controlplane import sqlite_driver

# Stable constraint names so that Alembic batch migrations on SQLite can find and alter them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# Execution option marking a read-only engine (see create_read_sessionmaker).
READ_ONLY = "vpn_read_only"
_READS = ("SELECT", "WITH", "BEGIN", "COMMIT", "ROLLBACK", "PRAGMA", "SAVEPOINT", "RELEASE")


class ReadOnlyTransaction(RuntimeError):
    """A statement that writes ran in a read-only transaction: the caller should have asked for a writing one."""


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite drops the offset otherwise)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def system_time() -> datetime:
    return datetime.now(UTC)


# The one clock the control plane reads (expiry, invoice lifetimes, leases, sessions). Tests that need time to pass
# swap it for a clock they move by hand (tests/clock.py) instead of sleeping.
clock: Callable[[], datetime] = system_time


def utcnow() -> datetime:
    return clock()


def new_id() -> str:
    return uuid.uuid4().hex


def one_of(db: AsyncSession, column: InstrumentedAttribute[Any], values: Any) -> ColumnElement[bool]:
    """`column IN values` for a long list of values (a node's peers by key, in a stats report). On PostgreSQL it
    is written `column = ANY($1)` with the list as one array parameter: SQLAlchemy renders an IN list's parameters
    again on every execution, about 4 µs each (1.4 ms of CPU for 350 keys: docs/benchmarks.md, "Stats reports at
    a million peers")."""
    values = list(values)
    if db.get_bind().dialect.name == "postgresql":
        return column == any_(bindparam(None, values, type_=ARRAY(column.type)))
    return column.in_(values)


def create_engine(url: str, pooled: bool = True) -> AsyncEngine:
    """`pooled=False` opens a connection per use: needed where one engine serves several event loops (tests)."""
    pool: dict[str, Any] = {} if pooled else {"poolclass": NullPool}
    if url.startswith("sqlite"):
        # One hand-off to aiosqlite's thread per statement, not four (controlplane/sqlite_driver.py).
        engine = create_async_engine(url, connect_args={"timeout": 30}, module=sqlite_driver.dbapi(), **pool)
        _configure_sqlite(engine.sync_engine)
        return engine
    if not pooled:
        return create_async_engine(url, **pool)
    engine = create_async_engine(url, pool_size=10, max_overflow=20)
    _ping_when_idle(engine.sync_engine)
    return engine


# A pooled connection unused for this long is pinged before it is handed out (docs/deployment.md, "When the
# database goes away").
PING_AFTER_IDLE_SECONDS = 2.0
_LAST_USED = "vpn_last_used"


def _ping_when_idle(engine: Engine) -> None:
    """SQLAlchemy's pool_pre_ping, but only for a connection that sat in the pool: on asyncpg the ping is a
    transaction begun, an empty query and a rollback (three round trips), a third of a regenerate's statements.

    The trade: if the server restarts while the process is busy, a request that takes a connection used moments ago
    fails (503 `unavailable`, Retry-After) instead of being served on a fresh one; SQLAlchemy then sees the
    disconnect and drops every pooled connection opened before it, so only the requests of that moment fail. After
    a quiet spell every connection is pinged, and the first request after a restart is served."""

    @event.listens_for(engine, "connect")
    def _opened(_dbapi_connection: Any, record: Any) -> None:
        record.info[_LAST_USED] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _returned(dbapi_connection: Any, record: Any) -> None:
        if dbapi_connection is not None:  # None: it was invalidated on the way back
            record.info[_LAST_USED] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get(_LAST_USED, 0.0) < PING_AFTER_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:  # the dialect's own error for a dead connection
            # The pool drops this connection and hands out a new one (checkout listeners run again on it).
            raise DisconnectionError() from exc


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        # aiosqlite opens in a transaction-less mode; WAL lets readers run beside the writer.
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (see _begin)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        if conn.get_execution_options().get(READ_ONLY):
            # A reader needs no lock: WAL gives it a snapshot beside the one writer.
            conn.exec_driver_sql("BEGIN")
            return
        # IMMEDIATE takes the write lock up front: a transaction that read first and writes later would otherwise
        # fail at once with "database is locked" when another writer committed in between (WAL snapshots).
        # SQLite serializes writers anyway; readers wait on the busy timeout instead of failing.
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    @event.listens_for(engine, "before_cursor_execute")
    def _refuse_writes_when_reading(
        conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, _executemany: bool
    ) -> None:
        # A deferred transaction that writes would take the lock late and could fail with SQLITE_BUSY; a read-only
        # transaction therefore refuses to write at all (PostgreSQL refuses by itself: BEGIN READ ONLY).
        if conn.get_execution_options().get(READ_ONLY) and not statement.lstrip()[:9].upper().startswith(_READS):
            raise ReadOnlyTransaction(f"write in a read-only transaction: {statement[:60]}")


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    # A Session class of its own: listeners on it (cache invalidation) belong to this sessionmaker alone.
    session_class = type("WritingSession", (Session,), {})
    return async_sessionmaker(engine, expire_on_commit=False, sync_session_class=session_class)


def session_class_of(db_sessionmaker: async_sessionmaker[AsyncSession]) -> type[Session]:
    session_class: type[Session] = db_sessionmaker.kw.get("sync_session_class", Session)
    return session_class


def create_read_sessionmaker(
    engine: AsyncEngine, session_class: type[Session] = Session
) -> async_sessionmaker[AsyncSession]:
    """Sessions for transactions that only read: no write lock on SQLite, `BEGIN READ ONLY` on PostgreSQL."""
    return async_sessionmaker(
        engine.execution_options(**{READ_ONLY: True, "postgresql_readonly": True}),
        expire_on_commit=False,
        sync_session_class=session_class,
    )


AfterCommit = Callable[[], Awaitable[None]]
BeforeCommit = Callable[[], Awaitable[None]]


def before_commit(session: AsyncSession, callback: BeforeCommit) -> None:
    """Run `callback` in the transaction, after the caller's last change, just before `transaction()` commits it
    (a node operation's delta is built there: nodes/send_ahead.py). A commit by hand does not run it; the
    transaction's own commit at its end does."""
    session.info.setdefault("before_commit", []).append(callback)


def after_commit(session: AsyncSession, callback: AfterCommit) -> None:
    """Run `callback` once the transaction has committed (notify agents, push to browsers): never before,
    so nobody hears of a change that may still roll back."""
    session.info.setdefault("after_commit", []).append(callback)


async def run_after_commit(session: AsyncSession) -> None:
    """The after-commit callbacks of a transaction committed by hand (one that must outlive an error answer)."""
    for callback in session.info.pop("after_commit", []):
        try:
            await callback()
        except Exception:
            logging.getLogger(__name__).exception("after-commit callback failed")


def _untouched(session: AsyncSession) -> bool:
    """Nothing was read, written or begun: there is nothing to commit or close (a request served from a cache)."""
    return not (session.in_transaction() or session.identity_map or session.new or session.deleted)


@asynccontextmanager
async def transaction(db_sessionmaker: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """One unit of work: commit on success (then the after-commit callbacks), roll back on error."""
    session = db_sessionmaker()
    try:
        yield session
    except BaseException:
        session.info.pop("after_commit", None)
        if not _untouched(session):
            try:
                await session.rollback()
            finally:
                await session.close()
        raise
    if _untouched(session):
        await run_after_commit(session)
        return
    try:
        for callback in session.info.pop("before_commit", []):
            await callback()
        await session.commit()
        await run_after_commit(session)
    finally:
        await session.close()
