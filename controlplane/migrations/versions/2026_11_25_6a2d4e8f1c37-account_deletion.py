"""accounts can be deleted: the row stays, emptied of personal data, for invoices and the audit log (docs/security.md)

Revision ID: 6a2d4e8f1c37
Revises: 21159c9d6c7d
Create Date: 2026-11-25 04:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "6a2d4e8f1c37"
down_revision: str | None = "21159c9d6c7d"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deleted_at", controlplane.db.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("deleted_at")
