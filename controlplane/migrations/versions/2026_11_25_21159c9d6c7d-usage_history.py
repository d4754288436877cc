"""usage history: bytes per peer and per server, hourly for 30 days and daily for a year; counters counted

Revision ID: 21159c9d6c7d
Revises: c3a8d51e6f02
Create Date: 2026-11-25 04:37:46.483881
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "21159c9d6c7d"
down_revision: str | None = "c3a8d51e6f02"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_usage_daily",
        sa.Column("server_id", sa.String(length=32), nullable=False),
        sa.Column("day", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("rx", sa.BigInteger(), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["server_id"], ["servers.id"], name=op.f("fk_server_usage_daily_server_id_servers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("server_id", "day", name=op.f("pk_server_usage_daily")),
    )
    with op.batch_alter_table("server_usage_daily", schema=None) as batch_op:
        batch_op.create_index("ix_server_usage_daily_day", ["day"], unique=False)

    op.create_table(
        "server_usage_hourly",
        sa.Column("server_id", sa.String(length=32), nullable=False),
        sa.Column("hour", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("rx", sa.BigInteger(), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["server_id"], ["servers.id"], name=op.f("fk_server_usage_hourly_server_id_servers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("server_id", "hour", name=op.f("pk_server_usage_hourly")),
    )
    with op.batch_alter_table("server_usage_hourly", schema=None) as batch_op:
        batch_op.create_index("ix_server_usage_hourly_hour", ["hour"], unique=False)

    op.create_table(
        "peer_usage_daily",
        sa.Column("peer_id", sa.String(length=32), nullable=False),
        sa.Column("day", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("rx", sa.BigInteger(), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["peer_id"], ["peers.id"], name=op.f("fk_peer_usage_daily_peer_id_peers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("peer_id", "day", name=op.f("pk_peer_usage_daily")),
    )
    with op.batch_alter_table("peer_usage_daily", schema=None) as batch_op:
        batch_op.create_index("ix_peer_usage_daily_day", ["day"], unique=False)

    op.create_table(
        "peer_usage_hourly",
        sa.Column("peer_id", sa.String(length=32), nullable=False),
        sa.Column("hour", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("rx", sa.BigInteger(), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["peer_id"], ["peers.id"], name=op.f("fk_peer_usage_hourly_peer_id_peers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("peer_id", "hour", name=op.f("pk_peer_usage_hourly")),
    )
    with op.batch_alter_table("peer_usage_hourly", schema=None) as batch_op:
        batch_op.create_index("ix_peer_usage_hourly_hour", ["hour"], unique=False)

    op.create_table(
        "usage_counters",
        sa.Column("peer_id", sa.String(length=32), nullable=False),
        sa.Column("server_id", sa.String(length=32), nullable=False),
        sa.Column("public_key", sa.String(length=44), nullable=False),
        sa.Column("rx", sa.BigInteger(), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=False),
        sa.Column("counted_at", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["peer_id"], ["peers.id"], name=op.f("fk_usage_counters_peer_id_peers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("peer_id", name=op.f("pk_usage_counters")),
    )


def downgrade() -> None:
    op.drop_table("usage_counters")
    with op.batch_alter_table("peer_usage_hourly", schema=None) as batch_op:
        batch_op.drop_index("ix_peer_usage_hourly_hour")

    op.drop_table("peer_usage_hourly")
    with op.batch_alter_table("peer_usage_daily", schema=None) as batch_op:
        batch_op.drop_index("ix_peer_usage_daily_day")

    op.drop_table("peer_usage_daily")
    with op.batch_alter_table("server_usage_hourly", schema=None) as batch_op:
        batch_op.drop_index("ix_server_usage_hourly_hour")

    op.drop_table("server_usage_hourly")
    with op.batch_alter_table("server_usage_daily", schema=None) as batch_op:
        batch_op.drop_index("ix_server_usage_daily_day")

    op.drop_table("server_usage_daily")
