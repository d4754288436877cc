"""room lobby: the games members announce (room_games) and who can hear whom (room_members.heard_*)

Revision ID: a7d3e9f1c2b4
Revises: a7d3e9f2c416
Create Date: 2026-11-28 05:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a7d3e9f1c2b4"
down_revision: str | None = "a7d3e9f2c416"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_games",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.Column("peer_id", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("detail", sa.String(length=64), nullable=False),
        sa.Column("port", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("seen_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["peer_id"], ["peers.id"], name=op.f("fk_room_games_peer_id_peers"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_room_games_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_room_games")),
        sa.UniqueConstraint("peer_id", "key", name=op.f("uq_room_games_peer_id")),
    )
    with op.batch_alter_table("room_games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_room_games_room_id"), ["room_id"], unique=False)
    with op.batch_alter_table("room_members", schema=None) as batch_op:
        batch_op.add_column(sa.Column("heard_packets", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("heard_at", sa.Float(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("room_members", schema=None) as batch_op:
        batch_op.drop_column("heard_at")
        batch_op.drop_column("heard_packets")
    with op.batch_alter_table("room_games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_room_games_room_id"))
    op.drop_table("room_games")
