"""one device per peer: the shared-configuration warning and the mirror link's device binding

Revision ID: c3a8d51e6f02
Revises: 5c1f0e2a7b3d
Create Date: 2026-11-25 04:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "c3a8d51e6f02"
down_revision: str | None = "5c1f0e2a7b3d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("shared_config_warned_at", controlplane.db.UTCDateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(sa.Column("mirror_device_binding", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("mirror_device_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.drop_column("mirror_device_hash")
        batch_op.drop_column("mirror_device_binding")
        batch_op.drop_column("shared_config_warned_at")
