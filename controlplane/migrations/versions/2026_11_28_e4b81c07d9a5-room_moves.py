"""room moves: the owner's "move all my peers there" until its one result is told (room_moves)

Revision ID: e4b81c07d9a5
Revises: a7d3e9f1c2b4
Create Date: 2026-11-28 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "e4b81c07d9a5"
down_revision: str | None = "a7d3e9f1c2b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_moves",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("room_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("server_id", sa.String(length=32), nullable=False),
        sa.Column("steps", sa.Text(), nullable=False),
        sa.Column("refused", sa.Text(), nullable=False),
        sa.Column("created", controlplane.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("told_at", controlplane.db.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["room_id"], ["rooms.id"], name=op.f("fk_room_moves_room_id_rooms"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["server_id"], ["servers.id"], name=op.f("fk_room_moves_server_id_servers"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_room_moves_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_room_moves")),
    )
    with op.batch_alter_table("room_moves", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_room_moves_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("room_moves", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_room_moves_user_id"))
    op.drop_table("room_moves")
