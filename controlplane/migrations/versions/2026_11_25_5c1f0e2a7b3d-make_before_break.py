"""make before break: a peer's pending placement and keys; when a server's agent last disconnected

Revision ID: 5c1f0e2a7b3d
Revises: b7e3c1f0a9d2
Create Date: 2026-11-25 01:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "5c1f0e2a7b3d"
down_revision: str | None = "b7e3c1f0a9d2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("servers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("disconnected_at", controlplane.db.UTCDateTime(timezone=True), nullable=True))
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pending_server_id", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("pending_address", sa.String(length=45), nullable=True))
        batch_op.add_column(sa.Column("pending_public_key", sa.String(length=44), nullable=True))
        batch_op.add_column(sa.Column("pending_private_key_enc", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("pending_preshared_key_enc", sa.Text(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_peers_pending_server_id_servers"), "servers", ["pending_server_id"], ["id"]
        )
        batch_op.create_index(batch_op.f("ix_peers_pending_server_id"), ["pending_server_id"], unique=False)
        batch_op.create_unique_constraint("uq_peers_pending_server_address", ["pending_server_id", "pending_address"])
        batch_op.create_unique_constraint(batch_op.f("uq_peers_pending_public_key"), ["pending_public_key"])


def downgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_peers_pending_public_key"), type_="unique")
        batch_op.drop_constraint("uq_peers_pending_server_address", type_="unique")
        batch_op.drop_index(batch_op.f("ix_peers_pending_server_id"))
        batch_op.drop_constraint(batch_op.f("fk_peers_pending_server_id_servers"), type_="foreignkey")
        batch_op.drop_column("pending_preshared_key_enc")
        batch_op.drop_column("pending_private_key_enc")
        batch_op.drop_column("pending_public_key")
        batch_op.drop_column("pending_address")
        batch_op.drop_column("pending_server_id")
    with op.batch_alter_table("servers", schema=None) as batch_op:
        batch_op.drop_column("disconnected_at")
