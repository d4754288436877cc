"""Applies Alembic migrations from code (the command line, `make run` and the tests use it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", database_url)
    config.set_main_option("file_template", "%%(year)d_%%(month).2d_%%(day).2d_%%(rev)s-%%(slug)s")
    return config


def ensure_sqlite_dir(database_url: str) -> None:
    if database_url.startswith("sqlite") and ":///" in database_url:
        path = database_url.split(":///", 1)[1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)


def upgrade(database_url: str, revision: str = "head") -> None:
    ensure_sqlite_dir(database_url)
    command.upgrade(alembic_config(database_url), revision)


def revision(database_url: str, message: str) -> None:
    command.revision(alembic_config(database_url), message=message, autogenerate=True)


async def upgrade_async(database_url: str) -> None:
    """env.py runs its own event loop, so from async code run it in a thread."""
    await asyncio.to_thread(upgrade, database_url)
