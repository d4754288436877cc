"""view versions: a peer's and a room's view carry their row's version, grown with every change, instead of the
clock of the process that read them (docs/api.md, versions)

Existing rows start at the upgrade's clock in microseconds, the versions the previous release handed out: a page
left open across the upgrade remembers those, and would otherwise ignore every push until reloaded.

Revision ID: b7d3e1f0a6c2
Revises: 7d2b9e4f1a63
Create Date: 2026-11-28 06:00:00.000000
"""

import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b7d3e1f0a6c2"
down_revision: str | None = "7d2b9e4f1a63"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ("peers", "rooms"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("version", sa.BigInteger(), server_default="1", nullable=False))
        rows = sa.table(table, sa.column("version", sa.BigInteger()))
        op.execute(rows.update().values(version=time.time_ns() // 1000))


def downgrade() -> None:
    for table in ("rooms", "peers"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("version")
