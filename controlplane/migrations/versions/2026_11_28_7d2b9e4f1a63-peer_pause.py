"""peer pause: when the customer paused the peer (null while not paused); a paused peer's key is off its node
(docs/api.md, "Pause and resume")

Revision ID: 7d2b9e4f1a63
Revises: 5e7a9c3b2d14
Create Date: 2026-11-28 06:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import controlplane.db

revision: str = "7d2b9e4f1a63"
down_revision: str | None = "5e7a9c3b2d14"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("paused_at", controlplane.db.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("peers", schema=None) as batch_op:
        batch_op.drop_column("paused_at")
