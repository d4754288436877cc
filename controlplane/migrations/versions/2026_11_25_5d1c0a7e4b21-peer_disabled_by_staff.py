"""peers remember that staff disabled them, so a payment does not bring them back (docs/security.md)

Revision ID: 5d1c0a7e4b21
Revises: 5e1a7c2d9b40
Create Date: 2026-11-25 01:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5d1c0a7e4b21"
down_revision: str | None = "5e1a7c2d9b40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Peers disabled before this column existed cannot be told apart: they count as expired (the old behaviour).
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("disabled_by_staff", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.drop_column("disabled_by_staff")
