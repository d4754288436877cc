"""node operations' batch: a room move's peer moves name it, and tell their outcome only in its one result

Revision ID: 5b0e3c9a7d21
Revises: 9d2e6b4a1f73
Create Date: 2026-11-28 12:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b0e3c9a7d21"
down_revision: str | None = "9d2e6b4a1f73"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("node_operations") as batch:
        batch.add_column(sa.Column("batch_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("node_operations") as batch:
        batch.drop_column("batch_id")
