"""SQLite through aiosqlite with one hand-off to its thread per statement (docs/benchmarks.md, "One trip to
SQLite's thread per statement").

aiosqlite runs each connection in a thread of its own and hands every call to it through a queue; the event loop
waits for the answer. SQLAlchemy's adapter makes four such calls for each statement (open a cursor, execute, fetch
the rows, close the cursor), and each costs a wake-up of both threads: a regenerate's dozen statements spent more
CPU on the hand-offs than on SQLite. Here the four run as one function in the connection's thread.

It relies on two private names of aiosqlite, as SQLAlchemy's own adapter does (`Connection._execute`, which queues
a function for the thread, and `Connection._conn`, the sqlite3 connection); the versions are pinned in uv.lock,
and every SQLite test runs through this module."""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Sequence
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)

# What one statement leaves on its cursor: description, rows (None when it returns none), lastrowid, rowcount.
_Outcome = tuple[Any, list[Any] | None, int | None, int]


def _run(connection: aiosqlite.Connection, operation: str, parameters: Any, many: bool) -> _Outcome:
    """In the connection's thread: the whole of a statement, from cursor to rows."""
    cursor = connection._conn.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        else:
            cursor.execute(operation, () if parameters is None else parameters)
        if cursor.description:
            return cursor.description, cursor.fetchall(), -1, -1
        return None, None, cursor.lastrowid, cursor.rowcount
    finally:
        cursor.close()


class _OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    __slots__ = ()

    def execute(self, operation: Any, parameters: Any = None) -> None:
        self._settle(operation, parameters, many=False)

    def executemany(self, operation: Any, seq_of_parameters: Sequence[Any]) -> None:
        self._settle(operation, seq_of_parameters, many=True)

    def _settle(self, operation: Any, parameters: Any, *, many: bool) -> None:
        try:
            outcome = self.await_(self._connection._execute(_run, self._connection, operation, parameters, many))
        except Exception as error:
            self._adapt_connection._handle_exception(error)
        self.description, rows, self.lastrowid, self.rowcount = outcome
        self._rows = deque(rows or ())


class _OneTripConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()

    def cursor(self, server_side: bool = False) -> AsyncAdapt_aiosqlite_cursor:
        # A server-side cursor fetches as it goes: it keeps SQLAlchemy's own (no statement here asks for one).
        return super().cursor(server_side=True) if server_side else _OneTripCursor(self)


class _OneTripDBAPI(AsyncAdapt_aiosqlite_dbapi):
    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        adapted = super().connect(*arg, **kw)
        if type(adapted) is not AsyncAdapt_aiosqlite_connection:  # the sync fallback mode: left as it is
            return adapted
        return _OneTripConnection(self, adapted._connection)


def dbapi() -> AsyncAdapt_aiosqlite_dbapi:
    """The DB-API module for `create_async_engine(..., module=dbapi())` on a sqlite+aiosqlite URL."""
    return _OneTripDBAPI(aiosqlite, sqlite3)
